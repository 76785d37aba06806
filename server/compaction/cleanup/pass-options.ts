// The cleanup pass's limits, options and result (the runner is pass.ts).
import "server-only";
import type { Clock, Timers } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { OperationState, CompactionOperation } from "@/lib/compaction/policy";
import type { PageLimits } from "./candidates";
import type { GateFailure, PreparedRow } from "./batch";
import type { CompactionStore } from "../store";

export const PASS_LIMITS = { workBudgetMs: 30_000, yieldMs: 100, continueAfterMs: 60_000, maxConsecutiveFailures: 5 } as const;

export type BatchLease = { release(): void };

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
   * A pass on a worker thread asks the main thread, so the answer may come
   * as a promise.
   */
  admitBatch?: () => BatchLease | null | Promise<BatchLease | null>;
  /** Called after each commit with the changed message ids (never bodies). */
  onBatch?: (event: BatchCommitted) => unknown;
  /** Runs after rows are read and reduced, before the writer transaction opens (awaited: a test may write the record there). */
  beforeBatch?: (rows: PreparedRow[]) => unknown;
  log?: Logger;
  workBudgetMs?: number;
  yieldMs?: number;
  /** The shortest pause after a committed batch (COMPACTION_BATCH_PAUSE_MS; default 1 ms). */
  minYieldMs?: number;
  deadlineMs?: number;
  pageLimits?: PageLimits;
  /** Ceiling of the batch row limit (tests that need one batch per task); the 8 MiB cap applies regardless. */
  maxBatchRows?: number;
};

export type PassEndReason = "complete" | "work_budget" | "cancelled" | "batch_failures" | GateFailure | "operation_active";

export type CleanupPassResult = {
  state: OperationState;
  reason: PassEndReason;
  /** True when the pass paused on its work budget and must be resumed. */
  continuation: boolean;
  continueAfterMs: number | null;
  operation: CompactionOperation | null;
};

export function waitWith(timers: Timers): (ms: number) => Promise<void> {
  return (ms) => new Promise((resolve) => timers.setTimeout(resolve, ms));
}
