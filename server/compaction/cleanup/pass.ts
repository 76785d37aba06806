// The cleanup pass runner: walks the candidates from the stored cursor,
// reads and reduces each page OUTSIDE the writer transaction, gathers pages
// across sessions and tasks into batches sized by work (open-batch.ts), and
// commits each batch in one writer transaction with the position after its
// last row: the walk order (task, session, rowid) is total, so the stored
// cursor is always a prefix of work fully done. A rolled-back batch is
// retried by walking again from the committed cursor. Between batches the
// pass yields in proportion to the batch's time (at most 100 ms) and stops at
// the 30 s work budget with its cursor saved (`continuation`: the worker
// waits at least a minute before resuming). Counts gathered since the last
// commit travel with the next one, so a crash loses cursor and counts
// together and a resume never double counts. A row the database refuses to
// rewrite (write-refused.ts) rolls its batch back once; the walk then skips
// it as `write_refused`, so no row can stop every pass at the same place.
import "server-only";
import { formatUtc } from "@/lib/time/rfc3339";
import type { OperationState } from "@/lib/compaction/policy";
import { PAGE_LIMITS, type PlannedPage } from "./candidates";
import { runBatch } from "./batch";
import { PASS_LIMITS, type CleanupPassOptions, type CleanupPassResult, type PassEndReason } from "./pass-options";
export { PASS_LIMITS, waitWith, type BatchCommitted, type BatchLease, type CleanupPassOptions, type CleanupPassResult, type PassEndReason } from "./pass-options";
import { BATCH_LIMITS, addToBatch, createOpenBatch, fitsBatch, isBatchFull, nextRowLimit, pageRoom } from "./open-batch";
import { checkTaskEligibility } from "../eligibility/eligibility";
import { captureTaskSnapshot, type TaskSnapshot } from "../eligibility/recheck";
import { finishPass, savePassProgress, startPass } from "./pass-record";
import { preparePage } from "./prepare-page";
import { yieldAfter } from "./yield";
export { yieldAfter } from "./yield";
import { ENTERED_TASK, scanCandidates, type PageVerdict, type ScanHandlers, type ScanPosition } from "./scan";
import { StatementDeadlineError } from "./statement-deadline";
import { WriteRefusedError } from "./write-refused";
import { addTally, createTally, type Tally } from "./tally";
import type { BatchGroup } from "./batch";

/** How a batch's write ended, and the yield owed after it. */
type Flushed = { verdict: "ok" | "failed"; pauseMs: number } | { verdict: "stop"; reason: PassEndReason; pauseMs: number };


export async function runCleanupPass(options: CleanupPassOptions): Promise<CleanupPassResult> {
  const { store, clock, operationId } = options;
  const start = await startPass(store, { operationId, nowMs: clock.now() });
  if (start.kind === "blocked") return { state: "failed", reason: start.reason, continuation: false, continueAfterMs: null, operation: null };
  if (start.kind === "ended") return { state: "partial", reason: start.reason, continuation: false, continueAfterMs: null, operation: start.operation };
  const { pass } = start;
  const limits = { workBudgetMs: options.workBudgetMs ?? PASS_LIMITS.workBudgetMs, yieldMs: options.yieldMs ?? PASS_LIMITS.yieldMs };
  const baseLimits = options.pageLimits ?? PAGE_LIMITS;
  const workStarted = clock.now();
  let waitedMs = 0;
  // Committed: as stored. Walked: how far the walk got; `pending` holds the
  // counts between the two and `open` the rows not yet written.
  let committed = start.committed;
  let committedPosition: ScanPosition = start.position;
  let walked: ScanPosition = start.position;
  let pending = createTally();
  let open = createOpenBatch();
  // Tasks counted eligible since the last commit (a drop in the writer takes the count back).
  const eligibleSinceCommit = new Set<string>();
  // Tasks that fell out of a committed batch: the rest of their rows are skipped.
  const dropped = new Set<string>();
  let failures = 0;
  const maxBatchRows = options.maxBatchRows ?? BATCH_LIMITS.maxRows;
  let rowLimit = Math.min(baseLimits.maxRows, maxBatchRows);
  // Rows that overran the deadline even alone: left intact for this pass
  // (counted `statement_deadline`) so one slow row cannot stall every pass.
  const overran = new Set<number>();
  // Rows whose rewrite the database refused: left intact for this pass (counted `write_refused`).
  const refused = new Set<number>();
  let stopReason: PassEndReason | null = null;
  let budgetSkips = false;
  let rewind = false;
  // Re-entering the task the cursor sits in must not count it twice.
  let resumedTaskId = taskInside(start.position);
  // The current task's watermarks, read before its full probe.
  let snapshot: TaskSnapshot | null = null;

  const pause = async (ms: number) => {
    const before = clock.now();
    await options.wait(ms);
    waitedMs += clock.now() - before;
  };

  // PostgreSQL (store.readsBesideWriter): the walk reads and reduces the
  // next batch while the previous one is written; `inFlight` is that write.
  // Writer transactions still run one at a time with the yield between
  // them, taken while nothing else runs (a wait is not work).
  const overlap = store.readsBesideWriter === true;
  let inFlight: Promise<{ flushed: Flushed } | { error: unknown }> | null = null;

  /** Writes one batch: "failed" means rolled back; `pauseMs` is the yield owed after it. */
  const commitBatch = async (batch: { groups: BatchGroup[]; pending: Tally; next: ScanPosition }): Promise<Flushed> => {
    const rows = batch.groups.flatMap((group) => group.rows);
    await options.beforeBatch?.(rows);
    const admitted = options.admitBatch ? options.admitBatch() : { release() {} };
    // The maintenance guard answers asynchronously (another process or instance may be asked); a test seam may answer at once.
    const lease = admitted instanceof Promise ? await admitted : admitted;
    if (!lease) {
      // Another maintenance operation owns the database: end this slice at
      // the committed cursor; the worker continues after at least a minute.
      // A cancel that arrived meanwhile ends the pass instead.
      return { verdict: "stop", reason: options.shouldStop?.() ? "cancelled" : "work_budget", pauseMs: 0 };
    }
    let result: Awaited<ReturnType<typeof runBatch>>;
    const batchStarted = clock.now();
    try {
      try {
        result = await runBatch({ store, clock, pass, groups: batch.groups, committed, pending: batch.pending, next: batch.next, from: committedPosition, deadlineMs: options.deadlineMs });
      } finally {
        lease.release();
      }
    } catch (error) {
      if (error instanceof WriteRefusedError && !refused.has(error.rowid)) {
        // The row is known: set it aside and walk again at once. Each row
        // costs one rollback, so this cannot loop (a refused row is never
        // written again in this pass) and is not a failure of the pass.
        refused.add(error.rowid);
        options.log?.warn({ operationId, code: error.code, engineCode: error.engineCode, rows: rows.length }, "compaction batch rolled back: a row's rewrite was refused");
        return { verdict: "failed", pauseMs: 0 };
      }
      failures += 1;
      const code = error instanceof StatementDeadlineError ? error.code : "batch_error";
      options.log?.warn({ operationId, failures, code, rows: rows.length }, "compaction batch rolled back");
      if (failures >= PASS_LIMITS.maxConsecutiveFailures) return { verdict: "stop", reason: "batch_failures", pauseMs: 0 };
      // A deadline overrun retries with half the rows; a single row that
      // overran alone is left intact and the pass moves past it.
      if (error instanceof StatementDeadlineError) {
        if (rows.length === 1) overran.add(rows[0]!.rowid);
        rowLimit = Math.max(1, Math.floor(rows.length / 2));
      }
      return { verdict: "failed", pauseMs: limits.yieldMs };
    }
    if (result.outcome === "gated") return { verdict: "stop", reason: result.reason, pauseMs: 0 };
    for (const task of result.dropped) {
      dropped.add(task.taskId);
      if (task.reason === "eligibility_budget") budgetSkips = true;
    }
    committed = result.committed;
    committedPosition = result.position;
    failures = 0;
    const batchMs = clock.now() - batchStarted;
    rowLimit = Math.min(maxBatchRows, nextRowLimit(rowLimit, batchMs));
    options.log?.debug({ operationId, changed: result.changedIds.length, rows: result.rows, tasks: result.dropped.length }, "compaction batch committed");
    // After the commit, outside the batch's failure handling: a listener
    // error propagates instead of retrying work that is already committed.
    await options.onBatch?.({ operationId, changedIds: result.changedIds, rows: result.rows, bytes: result.bytes });
    // Written beside the walk, a task that fell out may have rows walked since: the walk goes again from the commit.
    return { verdict: overlap && result.dropped.length > 0 ? "failed" : "ok", pauseMs: yieldAfter(batchMs, limits.yieldMs, options.minYieldMs) };
  };

  /** Waits for the batch being written beside the walk (if any) and takes its outcome as the walk's own. */
  const settle = async (): Promise<"ok" | "stop" | "failed"> => {
    if (!inFlight) return "ok";
    const outcome = await inFlight;
    inFlight = null;
    if ("error" in outcome) throw outcome.error;
    const { flushed } = outcome;
    await pause(flushed.pauseMs);
    if (flushed.verdict === "ok") return "ok";
    if (flushed.verdict === "stop") stopReason = flushed.reason;
    // Not committed as walked: what was walked since the committed cursor is
    // walked again ("failed") or left for the next slice ("stop").
    pending = createTally();
    open = createOpenBatch();
    eligibleSinceCommit.clear();
    walked = committedPosition;
    return flushed.verdict;
  };

  /** Commits the open batch: "failed" means rolled back (walk again from the committed cursor). */
  const flush = async (): Promise<"ok" | "stop" | "failed"> => {
    const previous = await settle();
    if (previous !== "ok") return previous;
    if (open.rows === 0) return "ok";
    const batch = { groups: open.groups, pending, next: walked };
    if (overlap) {
      pending = createTally();
      open = createOpenBatch();
      eligibleSinceCommit.clear();
      // Settled before the next batch and before the pass ends; a rejection waits for that (never unhandled).
      inFlight = commitBatch(batch).then(
        (flushed) => ({ flushed }),
        (error: unknown) => ({ error }),
      );
      return "ok";
    }
    const flushed = await commitBatch(batch);
    if (flushed.verdict === "ok") {
      walked = committedPosition;
      pending = createTally();
      open = createOpenBatch();
      eligibleSinceCommit.clear();
    }
    if (flushed.verdict === "stop") stopReason = flushed.reason;
    await pause(flushed.pauseMs);
    return flushed.verdict;
  };

  /** Flushes; a rollback makes the walk start again from the committed cursor. */
  const flushOrRewind = async (): Promise<boolean> => {
    const flushed = await flush();
    if (flushed === "failed") rewind = true;
    return flushed === "ok";
  };

  const handlePage = async (taskId: string, sessionId: string, page: PlannedPage, next: ScanPosition): Promise<PageVerdict> => {
    if (dropped.has(taskId)) return "skip_task";
    const local = createTally();
    const rowCount = page.rows.length + page.oversize.length + page.notText.length;
    local.scannedRows += rowCount;
    local.processedMessages += rowCount;
    if (page.oversize.length > 0) local.skipped.oversize = page.oversize.length;
    if (page.notText.length > 0) local.skipped.not_text = page.notText.length;
    const removedAt = formatUtc(clock.now());
    const readable = page.rows.filter((row) => !overran.has(row.rowid) && !refused.has(row.rowid));
    const deadlineSkips = page.rows.filter((row) => overran.has(row.rowid)).length;
    if (deadlineSkips > 0) local.skipped.statement_deadline = deadlineSkips;
    if (readable.length + deadlineSkips < page.rows.length) local.skipped.write_refused = page.rows.length - readable.length - deadlineSkips;
    const prepared = (await preparePage({ store, sessionId, rows: readable, removedAt, tally: local })).rows;
    // A page that does not fit commits the batch so far first (the cursor is
    // then the position before this page).
    if (prepared.length > 0 && !fitsBatch(open, prepared, rowLimit)) {
      if (!(await flushOrRewind())) return "stop";
      if (dropped.has(taskId)) return "skip_task";
    }
    addTally(pending, local);
    walked = next;
    if (prepared.length === 0) return "advance";
    addToBatch(open, { taskId, snapshot: snapshot as TaskSnapshot, rows: prepared, eligibleMessages: local.eligibleMessages, eligibleTask: eligibleSinceCommit.has(taskId) });
    if (isBatchFull(open, rowLimit) && !(await flushOrRewind())) return "stop";
    return "advance";
  };

  const enterTask = async (taskId: string): Promise<boolean> => {
    // A resumed task was counted before the pause; it is probed afresh.
    const resumed = taskId === resumedTaskId;
    resumedTaskId = null;
    if (!resumed) pending.processedTasks += 1;
    // Whole-session scans happen here, once per task, outside the writer;
    // the watermarks come first so the batches can prove nothing newer.
    const probe = async () => {
      if (!store.taskProbes) {
        snapshot = await captureTaskSnapshot(store, taskId);
        return checkTaskEligibility({ store, taskId, cutoffMs: pass.cutoffMs, clock });
      }
      // One statement reads every probe (PostgreSQL): the watermarks come from the same snapshot, not a read of their own.
      const startedMs = clock.now();
      const probes = await store.taskProbes(taskId);
      snapshot = await captureTaskSnapshot(store, taskId, probes);
      return checkTaskEligibility({ store, taskId, cutoffMs: pass.cutoffMs, clock, read: { probes, startedMs } });
    };
    let verdict = await probe();
    // A big task's scans can overrun on a momentarily busy machine: one
    // more try, then the task is skipped and the pass moves past it.
    if (!verdict.eligible && verdict.reason === "eligibility_budget") verdict = await probe();
    if (verdict.eligible) {
      // A resumed task keeps its deeper position.
      if (resumed) return true;
      // Entered: a commit from here on must not count the task again on resume.
      walked = { afterTaskId: taskId, afterSessionId: ENTERED_TASK, afterMessageRowid: null };
      pending.eligibleTasks += 1;
      eligibleSinceCommit.add(taskId);
      return true;
    }
    pending.skipped[verdict.reason] = (pending.skipped[verdict.reason] ?? 0) + 1;
    if (verdict.reason === "eligibility_budget") budgetSkips = true;
    walked = { afterTaskId: taskId, afterSessionId: null, afterMessageRowid: null };
    return false;
  };

  const handlers: ScanHandlers = {
    enterTask,
    page: ({ taskId, sessionId, page, next }) => handlePage(taskId, sessionId, page, next),
    moved: (position) => {
      // A task that fell out of a batch is already done as a whole: a session
      // of it finishing later must not move the position back inside it.
      if (position.afterSessionId !== null && dropped.has(position.afterTaskId as string)) return;
      walked = position;
    },
    shouldStop: () => {
      if (options.shouldStop?.()) stopReason = "cancelled";
      else if (options.shouldPause?.()) stopReason = "work_budget";
      else if (clock.now() - workStarted - waitedMs > limits.workBudgetMs) stopReason = "work_budget";
      return stopReason !== null;
    },
    limits: () => ({ ...baseLimits, ...pageRoom(open, rowLimit, baseLimits.maxRows) }),
    // Where the task's probe was one statement (PostgreSQL), its snapshot lists the sessions: no statement to list them again.
    sessionsOf: (taskId) => (store.taskProbes && snapshot?.taskId === taskId ? [...snapshot.sessions.keys()] : null),
  };

  let finished = false;
  for (;;) {
    rewind = false;
    const outcome = await scanCandidates({ store, bounds: { upperTaskId: pass.upperTaskId, upperMessageRowid: pass.upperMessageRowid }, position: committedPosition, handlers });
    // What the walk gathered goes out in one last batch before the pass ends or pauses.
    if (!rewind && (stopReason === null || (stopReason === "work_budget" && open.rows > 0))) {
      let flushed = await flush();
      if (flushed === "ok") flushed = await settle();
      if (flushed === "failed") rewind = stopReason === null;
    }
    // A batch still being written when the walk stopped settles before the pass goes on.
    if (inFlight && (await settle()) === "failed") rewind = stopReason === null;
    if (!rewind) {
      finished = outcome.finished;
      break;
    }
    // Rolled back: everything after the committed cursor is walked again.
    pending = createTally();
    open = createOpenBatch();
    eligibleSinceCommit.clear();
    walked = committedPosition;
    resumedTaskId = taskInside(committedPosition);
  }

  // Rows read but never written are not done: the pass keeps only what is.
  const settled = open.rows === 0;
  const total = createTally();
  addTally(total, committed);
  if (settled) addTally(total, pending);
  const position = settled ? walked : committedPosition;
  const nowMs = clock.now();
  // Assigned inside the handlers; the cast stops TypeScript narrowing it to null here.
  const stopped = stopReason as PassEndReason | null;
  const reason: PassEndReason = stopped ?? (finished ? "complete" : "cancelled");
  if (reason === "work_budget") {
    await savePassProgress(store, { pass, position, tally: total, nowMs, from: committedPosition });
    return { state: "running", reason, continuation: true, continueAfterMs: PASS_LIMITS.continueAfterMs, operation: null };
  }
  if (reason === "operation_replaced") return { state: "partial", reason, continuation: false, continueAfterMs: null, operation: null };
  const state = endState(reason, budgetSkips, total);
  const errorCode = reason === "complete" ? (budgetSkips ? "eligibility_budget" : null) : reason;
  const operation = await finishPass(store, { pass, tally: total, state, errorCode, nowMs, from: committedPosition });
  options.log?.info({ operationId, state, changed: operation.changedMessages, bytes: operation.payloadBytes }, "compaction pass ended");
  return { state, reason, continuation: false, continueAfterMs: null, operation };
}

/** The task a position sits inside (its count was committed), or null. */
function taskInside(position: ScanPosition): string | null {
  return position.afterSessionId !== null ? position.afterTaskId : null;
}

function endState(reason: PassEndReason, budgetSkips: boolean, total: Tally): OperationState {
  if (reason === "complete") return budgetSkips ? "partial" : "succeeded";
  if (reason === "cancelled") return "cancelled";
  if (reason === "batch_failures") return total.changedMessages > 0 ? "partial" : "failed";
  return "partial";
}
