// Analysis: a read-only dry run of cleanup over the same walk, the same
// eligibility and the same reducer (so its byte counts are the exact net
// reductions cleanup would commit). It is not a point-in-time snapshot: the
// result is an estimate over its scan window [startedAt, finishedAt].
// Work runs in chunks; between chunks the caller's `pause` lets the event
// loop breathe, and `shouldStop` (cancel) is honoured at page boundaries.
import "server-only";
import type { Clock } from "@/server/clock";
import { formatUtc } from "@/lib/time/rfc3339";
import type { CompactionAge, CompactionOperation } from "@/lib/compaction/policy";
import { PAGE_LIMITS } from "../cleanup/candidates";
import type { CompactionStore } from "../store";
import { computeCutoff } from "../eligibility/cutoff";
import { checkTaskEligibility } from "../eligibility/eligibility";
import { reduceBody } from "../reducer/reduce-body";
import { START_POSITION, scanCandidates } from "../cleanup/scan";
import { createTally, kindOf, tallyOperation, type Tally } from "../cleanup/tally";

export type AnalysisOptions = {
  store: CompactionStore;
  operationId: string;
  /** The draft age being analysed (not necessarily the saved policy). */
  age: CompactionAge;
  clock: Clock;
  /** Cancellation, checked between pages and tasks. */
  shouldStop?: () => boolean;
  /** Receives a snapshot after every chunk (never payload bodies). */
  onProgress?: (operation: CompactionOperation) => unknown;
  /** Yields to the event loop between chunks (default: setImmediate). */
  pause?: () => Promise<void>;
  /** Work time per chunk before pausing. */
  chunkMs?: number;
  /** Total work time; over it the result is partial. */
  workBudgetMs?: number;
};

export type PartialReason = "cancelled" | "work_budget" | "eligibility_budget";

export type AnalysisResult = {
  operation: CompactionOperation;
  /** Always true: rows change while the scan runs. */
  estimate: true;
  scanWindow: { startedAt: string; finishedAt: string };
  partialReason: PartialReason | null;
};

const DEFAULT_CHUNK_MS = 50;
const DEFAULT_WORK_BUDGET_MS = 10 * 60_000;

/** Readable and stable, so a client can compare it with its current draft. */
export function fingerprintAge(age: CompactionAge): string {
  return `${age.unit}:${age.value}`;
}

const defaultPause = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function runAnalysis(options: AnalysisOptions): Promise<AnalysisResult> {
  const { store, clock, age } = options;
  const pause = options.pause ?? defaultPause;
  const chunkMs = options.chunkMs ?? DEFAULT_CHUNK_MS;
  const budgetMs = options.workBudgetMs ?? DEFAULT_WORK_BUDGET_MS;
  const startedMs = clock.now();
  const cutoffMs = computeCutoff({ nowMs: startedMs, age });
  // Same removed_at form as cleanup: the marker's length is part of the net bytes.
  const removedAt = formatUtc(startedMs);
  const tally = createTally();
  const bounds = await store.captureBounds();
  let workMs = 0;
  let chunkStart = clock.now();
  let partialReason: PartialReason | null = null;

  const snapshot = (state: CompactionOperation["state"], finishedMs: number | null) =>
    tallyOperation({ tally, id: options.operationId, kind: "analysis", state, startedMs, finishedMs, cutoffMs, fingerprint: fingerprintAge(age) });

  const endChunkIfDue = async () => {
    const now = clock.now();
    if (now - chunkStart < chunkMs) return;
    workMs += now - chunkStart;
    await options.onProgress?.(snapshot("running", null));
    await pause();
    chunkStart = clock.now();
  };

  const outcome = await scanCandidates({
    store,
    bounds,
    position: START_POSITION,
    handlers: {
      enterTask: async (taskId) => {
        tally.processedTasks += 1;
        const verdict = await checkTaskEligibility({ store, taskId, cutoffMs, clock });
        if (verdict.eligible) {
          tally.eligibleTasks += 1;
          return true;
        }
        countSkip(tally, verdict.reason);
        if (verdict.reason === "eligibility_budget") partialReason ??= "eligibility_budget";
        return false;
      },
      page: async ({ sessionId, page }) => {
        tally.scannedRows += page.rows.length + page.oversize.length + page.notText.length;
        if (page.oversize.length > 0) tally.skipped.oversize = (tally.skipped.oversize ?? 0) + page.oversize.length;
        if (page.notText.length > 0) tally.skipped.not_text = (tally.skipped.not_text ?? 0) + page.notText.length;
        for (const row of await store.readToolRowBodies({ sessionId, rows: page.rows })) {
          const result = reduceBody(row, removedAt);
          if (result.outcome === "skipped") {
            countSkip(tally, result.reason);
            continue;
          }
          tally.eligibleMessages += 1;
          tally.payloadBytes += result.removedBytes;
          const kind = kindOf(result.removedFields, row.type);
          const entry = (tally.byKind[kind] ??= { messages: 0, payloadBytes: 0 });
          entry.messages += 1;
          entry.payloadBytes += result.removedBytes;
        }
        tally.processedMessages += page.rows.length + page.oversize.length + page.notText.length;
        await endChunkIfDue();
        return "advance";
      },
      moved: () => {},
      shouldStop: () => {
        if (options.shouldStop?.()) {
          partialReason = "cancelled";
          return true;
        }
        if (workMs + (clock.now() - chunkStart) > budgetMs) {
          partialReason = "work_budget";
          return true;
        }
        return false;
      },
      limits: () => PAGE_LIMITS,
    },
  });

  const finishedMs = clock.now();
  if (!outcome.finished && partialReason === null) partialReason = "cancelled";
  const state = partialReason === null ? "succeeded" : "partial";
  const operation = snapshot(state, finishedMs);
  if (partialReason !== null) operation.errorCode = partialReason;
  return {
    operation,
    estimate: true,
    scanWindow: { startedAt: formatUtc(startedMs), finishedAt: formatUtc(finishedMs) },
    partialReason,
  };
}

function countSkip(tally: Tally, reason: string): void {
  tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
}
