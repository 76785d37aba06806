// The thread expiry pass and its analysis. Both walk the threads in keyset
// pages from a cursor and judge each one (expiry-rule.ts) against the one
// cutoff of the operation. The pass then, per thread to expire:
// 1. under the maintenance guard and the thread's lock, in one writer
//    transaction: re-reads the thread's activity and re-judges it, checks the
//    policy is still armed for the pass's revision, writes the tombstone
//    (from this commit the thread and its run handles answer 410
//    thread_expired) and deletes the first batch of its rows;
// 2. deletes the rest in bounded batches (each its own transaction under the
//    guard), then marks the tombstone expired.
// Tombstones left `deleting` by an interrupted pass are finished first. The
// analysis runs the same walk and judging and deletes nothing.
import "server-only";
import type { ExpirySkipReason } from "@/lib/checkpoints/maintenance-api";
import type { Lease, MaintenanceGuard } from "@/server/maintenance/guard";
import type { Clock } from "@/server/clock";
import type { Logger } from "@/server/log";
import { withThreadLock, threadLockBusy, type ThreadLocks } from "../thread-lock";
import type { RunHistoryCache } from "../cleanup/run-history";
import { judgeThread } from "./expiry-rule";
import { emptyExpiryCounts, type ExpiryCounts } from "./operation";
import { readRecord } from "./records";
import type { CheckpointScheduleStore, ThreadActivity } from "./store";

export type ExpiryLimits = {
  /** Threads judged per page read. */
  pageThreads: number;
  /** Rows one deletion batch removes at most (one writer transaction). */
  batchRows: number;
};

export const EXPIRY_LIMITS: Readonly<ExpiryLimits> = { pageThreads: 100, batchRows: 2000 };

export type ExpiryWalkDeps = {
  store: CheckpointScheduleStore;
  locks: ThreadLocks;
  clock: Clock;
  log: Logger;
  limits?: Partial<ExpiryLimits>;
  /** Asked between threads and batches: cancel, shutdown or a replaced operation. */
  shouldStop: () => boolean;
  /** After each thread: the counts so far and the cursor (the last thread finished). */
  onProgress?: (counts: ExpiryCounts, cursor: string | null) => Promise<void> | void;
};

export type ExpiryPassDeps = ExpiryWalkDeps & {
  guard: MaintenanceGuard;
  cache?: RunHistoryCache;
  /** False once the maintenance window closed for this operation. */
  mayRun: () => boolean;
  /** Yields between batches (the next request gets the writer). */
  pause?: () => Promise<void>;
};

export type ExpiryOutcome = "done" | "stopped" | "window_closed" | "maintenance_busy" | "policy_changed";

export type ExpiryPassResult = { outcome: ExpiryOutcome; cursor: string | null; counts: ExpiryCounts };

function skip(counts: ExpiryCounts, reason: ExpirySkipReason): void {
  counts.skipped[reason] = (counts.skipped[reason] ?? 0) + 1;
}

async function* pages(deps: ExpiryWalkDeps, cursor: string | null): AsyncGenerator<ThreadActivity[]> {
  const limit = deps.limits?.pageThreads ?? EXPIRY_LIMITS.pageThreads;
  let after = cursor;
  for (;;) {
    const page = await deps.store.listThreadActivity({ afterThreadId: after, limit });
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.threadId;
    if (page.length < limit) return;
  }
}

/** What expiring now would delete: threads, checkpoints, writes and bytes; deletes nothing. */
export async function analyzeExpiry(deps: ExpiryWalkDeps, options: { cutoffMs: number }): Promise<{ counts: ExpiryCounts; stopped: boolean }> {
  const counts = emptyExpiryCounts();
  for await (const page of pages(deps, null)) {
    for (const activity of page) {
      if (deps.shouldStop()) return { counts, stopped: true };
      if (activity.tombstoned) continue;
      counts.threadsScanned += 1;
      const verdict = judgeThread({ activity, cutoffMs: options.cutoffMs, runInFlight: threadLockBusy(deps.locks, activity.threadId) });
      if (!verdict.expire) {
        skip(counts, verdict.reason);
        continue;
      }
      const size = await deps.store.threadSize(activity.threadId);
      counts.threads += 1;
      counts.checkpoints += size.checkpoints;
      counts.writes += size.writes;
      counts.bytes += size.bytes;
    }
    await deps.onProgress?.(counts, page[page.length - 1]!.threadId);
  }
  return { counts, stopped: false };
}

type Gate = ExpiryOutcome | null;

function gate(deps: ExpiryPassDeps): Gate {
  if (deps.shouldStop()) return "stopped";
  if (!deps.mayRun()) return "window_closed";
  return null;
}

/** Runs `fn` under a maintenance lease, or answers maintenance_busy when another heavy operation holds the guard. */
async function underGuard<T>(deps: ExpiryPassDeps, operationId: string, fn: (lease: Lease) => Promise<T>): Promise<T | "maintenance_busy"> {
  const lease = await deps.guard.tryAcquire({ owner: `thread-expiry:${operationId}`, kind: "compaction" });
  if (!lease) return "maintenance_busy";
  try {
    return await fn(lease);
  } finally {
    lease.release();
  }
}

/** Deletes the rest of a tombstoned thread's rows, batch by batch; true once its tombstone is marked expired. */
async function finishThread(deps: ExpiryPassDeps, operationId: string, threadId: string): Promise<Gate> {
  const batchRows = deps.limits?.batchRows ?? EXPIRY_LIMITS.batchRows;
  for (;;) {
    const stop = gate(deps);
    if (stop) return stop;
    const step = await underGuard(deps, operationId, async () => {
      const deleted = await deps.store.deleteThreadRows(threadId, batchRows);
      const total = deleted.checkpoints + deleted.writes + deleted.blobs + deleted.runs;
      if (total >= batchRows) return "more" as const;
      return (await deps.store.finishTombstone(threadId, deps.clock.now())) ? ("finished" as const) : ("more" as const);
    });
    if (step === "maintenance_busy") return step;
    if (step === "finished") return null;
    await deps.pause?.();
  }
}

/**
 * The pass. `revision` is the policy revision it runs under: a thread is
 * only tombstoned while the stored policy is still enabled and approved for
 * it (a disable or a shortened-then-unapproved period stops the pass).
 */
export async function runExpiryPass(
  deps: ExpiryPassDeps,
  options: { operationId: string; cutoffMs: number; revision: number; cursor: string | null; counts?: ExpiryCounts },
): Promise<ExpiryPassResult> {
  const { operationId, cutoffMs, revision } = options;
  const counts = options.counts ?? emptyExpiryCounts();
  const batchRows = deps.limits?.batchRows ?? EXPIRY_LIMITS.batchRows;
  let cursor = options.cursor;

  // Tombstones an interrupted pass left behind go first: those threads already answer 410.
  for (const threadId of await deps.store.deletingThreads(EXPIRY_LIMITS.pageThreads)) {
    const stop = await finishThread(deps, operationId, threadId);
    if (stop) return { outcome: stop, cursor, counts };
  }

  for await (const page of pages(deps, cursor)) {
    for (const activity of page) {
      const stop = gate(deps);
      if (stop) return { outcome: stop, cursor, counts };
      const { threadId } = activity;
      if (activity.tombstoned) {
        const unfinished = await finishThread(deps, operationId, threadId);
        if (unfinished) return { outcome: unfinished, cursor, counts };
        cursor = threadId;
        continue;
      }
      counts.threadsScanned += 1;
      const verdict = judgeThread({ activity, cutoffMs, runInFlight: threadLockBusy(deps.locks, threadId) });
      if (!verdict.expire) {
        skip(counts, verdict.reason);
        cursor = threadId;
        continue;
      }
      const first = await underGuard(deps, operationId, () =>
        withThreadLock(deps.locks, threadId, () =>
          deps.store.writeTransaction(async () => {
            const read = await readRecord(deps.store, "thread_expiry");
            const policy = read.state === "malformed" ? null : read.record;
            const armed =
              policy !== null &&
              policy.policy.enabled &&
              policy.policy.revision === revision &&
              policy.runtime.approvedRevision === revision &&
              policy.runtime.preparation.state === "ready";
            if (!armed) return "policy_changed" as const;
            // Re-judged under the lock and in the transaction: a run that
            // finished since the page was read keeps the thread.
            const now = await deps.store.threadActivity(threadId);
            if (!now || now.tombstoned) return "gone" as const;
            const again = judgeThread({ activity: now, cutoffMs, runInFlight: false });
            if (!again.expire) return again.reason;
            const size = await deps.store.threadSize(threadId);
            await deps.store.insertTombstone({
              threadId,
              state: "deleting",
              expiredAtMs: deps.clock.now(),
              lastActivityMs: again.lastActivityMs,
              cutoffMs,
              operationId,
              policyRevision: revision,
              ...size,
            });
            const deleted = await deps.store.deleteThreadRows(threadId, batchRows);
            const done = deleted.checkpoints + deleted.writes + deleted.blobs + deleted.runs < batchRows && (await deps.store.finishTombstone(threadId, deps.clock.now()));
            deps.cache?.invalidate(threadId);
            return { size, done };
          }),
        ),
      );
      if (first === "maintenance_busy" || first === "policy_changed") return { outcome: first, cursor, counts };
      if (first === "gone") {
        cursor = threadId;
        continue;
      }
      if (typeof first === "string") {
        skip(counts, first);
        cursor = threadId;
        continue;
      }
      counts.threads += 1;
      counts.checkpoints += first.size.checkpoints;
      counts.writes += first.size.writes;
      counts.bytes += first.size.bytes;
      deps.log.info({ operationId, checkpoints: first.size.checkpoints, writes: first.size.writes, bytes: first.size.bytes }, "thread expired");
      if (!first.done) {
        await deps.pause?.();
        const unfinished = await finishThread(deps, operationId, threadId);
        if (unfinished) return { outcome: unfinished, cursor, counts };
      }
      cursor = threadId;
      await deps.onProgress?.(counts, cursor);
      await deps.pause?.();
    }
    await deps.onProgress?.(counts, cursor);
  }
  return { outcome: "done", cursor, counts };
}
