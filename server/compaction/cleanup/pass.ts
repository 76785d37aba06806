// The cleanup pass runner: walks the candidates from the stored cursor,
// reads and reduces each page OUTSIDE the writer transaction (the writer is
// held only for the guarded updates), commits batch by batch, yields in
// proportion to each batch's time (at most 100 ms), and stops at the 30 s work budget with its cursor saved
// (`continuation`: the worker waits at least a minute before resuming).
// Task-level counts gathered between commits travel with the next commit, so
// a crash loses cursor and counts together and a resume never double counts.
import "server-only";
import type { Clock, Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import { formatUtc } from "@/lib/time/rfc3339";
import type { OperationState, RetentionOperation } from "@/lib/compaction/policy";
import { PAGE_LIMITS, type PageLimits, type PlannedPage } from "./candidates";
import { runBatch, type GateFailure, type PreparedRow } from "./batch";
import { checkTaskEligibility } from "../eligibility/eligibility";
import { captureTaskSnapshot, type TaskSnapshot } from "../eligibility/recheck";
import { finishPass, savePassProgress, startPass } from "./pass-record";
import { preparePage } from "./prepare-page";
import { yieldAfter } from "./yield";
export { yieldAfter } from "./yield";
import { scanCandidates, type PageVerdict } from "./scan";
import { StatementDeadlineError } from "./statement-deadline";
import type { CompactionStore } from "../store";
import { addTally, createTally, type Tally } from "./tally";

export const PASS_LIMITS = { workBudgetMs: 30_000, yieldMs: 100, continueAfterMs: 60_000, maxConsecutiveFailures: 5 } as const;

export type BatchCommitted = { operationId: string; changedIds: string[]; rows: number; bytes: number };

export type CleanupPassOptions = {
  store: CompactionStore;
  clock: Clock;
  operationId: string;
  /** Waits between batches; build it from injected Timers with `waitWith`. */
  wait: (ms: number) => Promise<void>;
  /** Cancellation, checked at batch boundaries: the pass ends cancelled. */
  shouldStop?: () => boolean;
  /** Shutdown, checked at batch boundaries: the pass saves its cursor and resumes later. */
  shouldPause?: () => boolean;
  /**
   * Admission to the shared maintenance guard for one batch: a lease, or
   * null while a backup, restore or VACUUM owns it. The slice then pauses
   * with its cursor saved (a continuation); deferral is not a failure.
   */
  admitBatch?: () => { release(): void } | null;
  /** Called after each commit with the changed message ids (never bodies). */
  onBatch?: (event: BatchCommitted) => void;
  /** Runs after rows are read and reduced, before the writer transaction opens. */
  beforeBatch?: (rows: PreparedRow[]) => void;
  log?: Logger;
  workBudgetMs?: number;
  yieldMs?: number;
  /** The shortest pause after a committed batch (COMPACTION_BATCH_PAUSE_MS; default 1 ms). */
  minYieldMs?: number;
  deadlineMs?: number;
  pageLimits?: PageLimits;
};

export type PassEndReason = "complete" | "work_budget" | "cancelled" | "batch_failures" | GateFailure | "operation_active";

export type CleanupPassResult = {
  state: OperationState;
  reason: PassEndReason;
  /** True when the pass paused on its work budget and must be resumed. */
  continuation: boolean;
  continueAfterMs: number | null;
  operation: RetentionOperation | null;
};

export function waitWith(timers: Timers): (ms: number) => Promise<void> {
  return (ms) => new Promise((resolve) => timers.setTimeout(resolve, ms));
}

export async function runCleanupPass(options: CleanupPassOptions): Promise<CleanupPassResult> {
  const { store, clock, operationId } = options;
  const start = startPass(store, { operationId, nowMs: clock.now() });
  if (start.kind === "blocked") return { state: "failed", reason: start.reason, continuation: false, continueAfterMs: null, operation: null };
  if (start.kind === "ended") return { state: "partial", reason: start.reason, continuation: false, continueAfterMs: null, operation: start.operation };
  const { pass } = start;
  const limits = { workBudgetMs: options.workBudgetMs ?? PASS_LIMITS.workBudgetMs, yieldMs: options.yieldMs ?? PASS_LIMITS.yieldMs };
  const baseLimits = options.pageLimits ?? PAGE_LIMITS;
  const workStarted = clock.now();
  let waitedMs = 0;
  let committed = start.committed;
  let pending = createTally();
  let failures = 0;
  let rowLimit = baseLimits.maxRows;
  // Rows that overran the deadline even alone: left intact for this pass
  // (counted `statement_deadline`) so one slow row cannot stall every pass.
  const overran = new Set<number>();
  let stopReason: PassEndReason | null = null;
  let budgetSkips = false;
  // Re-entering the task the cursor sits in must not count it twice.
  let resumedTaskId = start.position.afterSessionId !== null ? start.position.afterTaskId : null;
  // The task whose "eligible" count is still uncommitted in `pending`: a
  // rejection in the writer transaction takes it back (skipped, not eligible).
  let uncommittedEligible: string | null = null;
  // The current task's watermarks, read before its full probe.
  let snapshot: TaskSnapshot | null = null;

  const pause = async (ms: number) => {
    const before = clock.now();
    await options.wait(ms);
    waitedMs += clock.now() - before;
  };

  const handlePage = async (taskId: string, sessionId: string, page: PlannedPage, next: typeof start.position): Promise<PageVerdict> => {
    const local = createTally();
    local.scannedRows += page.rows.length + page.oversize.length;
    local.processedMessages += page.rows.length + page.oversize.length;
    if (page.oversize.length > 0) local.skipped.oversize = page.oversize.length;
    const removedAt = formatUtc(clock.now());
    const readable = page.rows.filter((row) => !overran.has(row.rowid));
    if (readable.length < page.rows.length) local.skipped.statement_deadline = page.rows.length - readable.length;
    const prepared = preparePage({ store, sessionId, rows: readable, removedAt, tally: local }).rows;
    if (prepared.length === 0) {
      addTally(pending, local);
      rowLimit = baseLimits.maxRows;
      return "advance";
    }
    options.beforeBatch?.(prepared);
    const carried = createTally();
    addTally(carried, pending);
    addTally(carried, local);
    const lease = options.admitBatch ? options.admitBatch() : { release() {} };
    if (!lease) {
      // Another maintenance operation owns the database: end this slice with
      // its cursor saved; the worker continues after at least a minute.
      stopReason = "work_budget";
      return "stop";
    }
    let result: ReturnType<typeof runBatch>;
    const batchStarted = clock.now();
    try {
      try {
        result = runBatch({ store, clock, pass, taskId, snapshot: snapshot as TaskSnapshot, rows: prepared, committed, pending: carried, next, deadlineMs: options.deadlineMs });
      } finally {
        lease.release();
      }
    } catch (error) {
      failures += 1;
      const code = error instanceof StatementDeadlineError ? error.code : "batch_error";
      options.log?.warn({ operationId, failures, code }, "retention batch rolled back");
      if (failures >= PASS_LIMITS.maxConsecutiveFailures) {
        stopReason = "batch_failures";
        return "stop";
      }
      // A deadline overrun retries with half the rows; a single row that
      // overran alone is left intact and the pass moves past it.
      if (error instanceof StatementDeadlineError) {
        if (prepared.length === 1) overran.add(prepared[0]!.rowid);
        rowLimit = Math.max(1, Math.floor(prepared.length / 2));
      }
      await pause(limits.yieldMs);
      return "retry";
    }
    if (result.outcome === "gated") {
      stopReason = result.reason;
      return "stop";
    }
    if (result.outcome === "task_ineligible") {
      local.eligibleMessages = 0;
      if (uncommittedEligible === taskId) {
        pending.eligibleTasks -= 1;
        uncommittedEligible = null;
      }
      addTally(pending, local);
      pending.skipped[result.reason] = (pending.skipped[result.reason] ?? 0) + 1;
      if (result.reason === "eligibility_budget") budgetSkips = true;
      return "skip_task";
    }
    committed = result.committed;
    pending = createTally();
    uncommittedEligible = null;
    failures = 0;
    rowLimit = baseLimits.maxRows;
    options.log?.debug({ operationId, changed: result.changedIds.length, rows: result.rows }, "retention batch committed");
    // After the commit, outside the batch's failure handling: a listener
    // error propagates instead of retrying work that is already committed.
    const batchMs = clock.now() - batchStarted;
    options.onBatch?.({ operationId, changedIds: result.changedIds, rows: result.rows, bytes: result.bytes });
    await pause(yieldAfter(batchMs, limits.yieldMs, options.minYieldMs));
    return "advance";
  };

  const outcome = await scanCandidates({
    store,
    bounds: { upperTaskId: pass.upperTaskId, upperMessageRowid: pass.upperMessageRowid },
    position: start.position,
    handlers: {
      enterTask: (taskId) => {
        // A resumed task was counted before the pause; it is probed afresh.
        const resumed = taskId === resumedTaskId;
        resumedTaskId = null;
        if (!resumed) pending.processedTasks += 1;
        // Whole-session scans happen here, once per task, outside the writer;
        // the watermarks come first so the batches can prove nothing newer.
        snapshot = captureTaskSnapshot(store, taskId);
        let verdict = checkTaskEligibility({ store, taskId, cutoffMs: pass.cutoffMs, clock });
        // A big task's scans can overrun on a momentarily busy machine: one
        // more try, then the task is skipped and the pass moves past it.
        if (!verdict.eligible && verdict.reason === "eligibility_budget") {
          snapshot = captureTaskSnapshot(store, taskId);
          verdict = checkTaskEligibility({ store, taskId, cutoffMs: pass.cutoffMs, clock });
        }
        if (verdict.eligible) {
          if (resumed) return true;
          pending.eligibleTasks += 1;
          uncommittedEligible = taskId;
          return true;
        }
        pending.skipped[verdict.reason] = (pending.skipped[verdict.reason] ?? 0) + 1;
        if (verdict.reason === "eligibility_budget") budgetSkips = true;
        return false;
      },
      page: ({ taskId, sessionId, page, next }) => handlePage(taskId, sessionId, page, next),
      moved: () => {},
      shouldStop: () => {
        if (options.shouldStop?.()) stopReason = "cancelled";
        else if (options.shouldPause?.()) stopReason = "work_budget";
        else if (clock.now() - workStarted - waitedMs > limits.workBudgetMs) stopReason = "work_budget";
        return stopReason !== null;
      },
      limits: () => ({ ...baseLimits, maxRows: rowLimit }),
    },
  });

  const total = createTally();
  addTally(total, committed);
  addTally(total, pending);
  const nowMs = clock.now();
  // Assigned inside the handlers; the cast stops TypeScript narrowing it to null here.
  const stopped = stopReason as PassEndReason | null;
  const reason: PassEndReason = stopped ?? (outcome.finished ? "complete" : "cancelled");
  if (reason === "work_budget") {
    savePassProgress(store, { pass, position: outcome.position, tally: total, nowMs });
    return { state: "running", reason, continuation: true, continueAfterMs: PASS_LIMITS.continueAfterMs, operation: null };
  }
  if (reason === "operation_replaced") return { state: "partial", reason, continuation: false, continueAfterMs: null, operation: null };
  const state = endState(reason, budgetSkips, total);
  const errorCode = reason === "complete" ? (budgetSkips ? "eligibility_budget" : null) : reason;
  const operation = finishPass(store, { pass, tally: total, state, errorCode, nowMs });
  options.log?.info({ operationId, state, changed: operation.changedMessages, bytes: operation.payloadBytes }, "retention pass ended");
  return { state, reason, continuation: false, continueAfterMs: null, operation };
}

function endState(reason: PassEndReason, budgetSkips: boolean, total: Tally): OperationState {
  if (reason === "complete") return budgetSkips ? "partial" : "succeeded";
  if (reason === "cancelled") return "cancelled";
  if (reason === "batch_failures") return total.changedMessages > 0 ? "partial" : "failed";
  return "partial";
}
