import "server-only";
// Checkpoint analysis / cleanup operations: one serial queue per runtime,
// each thread under the shared maintenance guard (kind "compaction"; a held
// guard means waiting, not failing) and its thread lock. Progress goes to the
// event bus; only the latest result is stored (settings `checkpoint_retention`).
import type { ActiveOperation, CheckpointOperationKind, OperationAccepted, RetentionResult } from "@/lib/checkpoints/api";
import type { OperationState } from "@/lib/events/api";
import type { Clock } from "@/server/clock";
import { AppError, isAppError } from "@/server/errors";
import type { EventBus } from "@/server/events/bus";
import { createSerialQueue, type JobContext, type SerialQueue } from "@/server/jobs/serial-queue";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "@/server/maintenance/guard";
import type { CheckpointStore } from "../store";
import type { ThreadLocks } from "../thread-lock";
import type { RetentionEpochs } from "./epoch";
import { runEngine, type EngineReport } from "./maintenance";
import { writeResult } from "./result-record";
import type { RunHistoryCache } from "./run-history";

export type OperationDeps = {
  store: CheckpointStore;
  clock: Clock;
  log: Logger;
  guard: MaintenanceGuard;
  bus: EventBus;
  locks: ThreadLocks;
  cache: RunHistoryCache;
  epochs?: RetentionEpochs;
  /** The runtime's queue: one operation at a time across every request. */
  jobs: CheckpointQueue;
  wait: (ms: number) => Promise<void>;
  newId: () => string;
};

export type CheckpointQueue = { queue: SerialQueue; active: Map<string, ActiveOperation> };

export function createCheckpointQueue(): CheckpointQueue {
  return { queue: createSerialQueue(), active: new Map() };
}

export function activeCheckpointOperation(jobs: CheckpointQueue): ActiveOperation | null {
  return [...jobs.active.values()][0] ?? null;
}

class Stopped extends Error {}

const LEASE_RETRY_MS = 1000;

function publish(deps: OperationDeps, id: string, kind: CheckpointOperationKind, state: OperationState, report?: EngineReport, total?: number) {
  const reclaimedRows = report ? report.before.checkpoints + report.before.writes - report.after.checkpoints - report.after.writes : 0;
  const reclaimedBytes = report ? report.before.checkpointBytes + report.before.writesBytes - report.after.checkpointBytes - report.after.writesBytes : 0;
  deps.bus.publish({
    type: "operation",
    operationId: id,
    kind: kind === "analysis" ? "checkpoint_analysis" : "checkpoint_cleanup",
    state,
    progress: {
      scannedRows: report?.threads.length ?? 0,
      eligibleMessages: reclaimedRows,
      changedMessages: kind === "cleanup" ? reclaimedRows : 0,
      payloadBytes: reclaimedBytes,
      fraction: report && total ? report.threads.length / total : null,
    },
  });
}

function toResult(id: string, kind: CheckpointOperationKind, startedAtMs: number, finishedAtMs: number, report: EngineReport | null, state: RetentionResult["state"], errorCode: string | null): RetentionResult {
  const zero = { checkpoints: 0, writes: 0, checkpointBytes: 0, writesBytes: 0 };
  const threads = report?.threads ?? [];
  const bytes = (t: EngineReport["before"]) => t.checkpointBytes + t.writesBytes;
  const top = threads
    .filter((t) => bytes(t.before) > bytes(t.after))
    .sort((a, b) => bytes(b.before) - bytes(b.after) - (bytes(a.before) - bytes(a.after)) || a.threadId.localeCompare(b.threadId))
    .slice(0, 10)
    .map((t) => ({ threadId: t.threadId, before: t.before, after: t.after }));
  return {
    version: 1,
    operationId: id,
    kind,
    state,
    errorCode,
    startedAtMs,
    finishedAtMs,
    before: report?.before ?? zero,
    after: report?.after ?? zero,
    threadsScanned: threads.length,
    threadsChanged: threads.filter((t) => t.after.checkpoints !== t.before.checkpoints || t.after.writes !== t.before.writes).length,
    threadsSkipped: threads.filter((t) => t.skipped !== null).length,
    orphanWritesAfter: threads.reduce((n, t) => n + t.orphanWritesAfter, 0),
    topThreads: top,
  };
}

async function underLease<T>(deps: OperationDeps, id: string, ctx: JobContext, fn: () => Promise<T>): Promise<T> {
  let lease = deps.guard.tryAcquire({ owner: `checkpoint-retention:${id}`, kind: "compaction" });
  while (!lease) {
    if (ctx.shouldStop()) throw new Stopped();
    await deps.wait(LEASE_RETRY_MS);
    lease = deps.guard.tryAcquire({ owner: `checkpoint-retention:${id}`, kind: "compaction" });
  }
  try {
    return await fn();
  } finally {
    lease.release();
  }
}

async function runJob(deps: OperationDeps, id: string, kind: CheckpointOperationKind, ctx: JobContext): Promise<void> {
  const { active } = deps.jobs;
  active.set(id, { operationId: id, kind, state: "running" });
  publish(deps, id, kind, "running");
  const startedAtMs = deps.clock.now();
  let report: EngineReport | null = null;
  let state: RetentionResult["state"] = "succeeded";
  let errorCode: string | null = null;
  try {
    report = await runEngine({
      store: deps.store,
      locks: deps.locks,
      cache: deps.cache,
      epochs: deps.epochs,
      dryRun: kind === "analysis",
      graftLinks: true,
      keepRunHistoryCarrier: true,
      shouldStop: () => ctx.shouldStop(),
      around: (fn) => underLease(deps, id, ctx, fn),
      onThread: (_thread, _done, total, soFar) => publish(deps, id, kind, "running", soFar, total),
    });
    if (report.stopped) state = "cancelled";
  } catch (error) {
    state = error instanceof Stopped ? "cancelled" : "failed";
    errorCode = error instanceof Stopped ? null : isAppError(error) ? error.code : "internal_error";
    deps.log.warn({ operationId: id, kind, err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "checkpoint operation ended early");
  }
  try {
    writeResult(deps.store, toResult(id, kind, startedAtMs, deps.clock.now(), report, state, errorCode), deps.clock.now());
  } finally {
    active.delete(id);
    publish(deps, id, kind, state, report ?? undefined, report?.threads.length);
    deps.log.info({ operationId: id, kind, state, threads: report?.threads.length ?? 0 }, "checkpoint operation finished");
  }
}

/** Queues an analysis or cleanup; 409 operation_active while one is queued or running. */
export function startOperation(deps: OperationDeps, kind: CheckpointOperationKind): OperationAccepted {
  const { queue, active } = deps.jobs;
  if (active.size > 0) throw new AppError("operation_active", "A checkpoint operation is already queued or running");
  const id = deps.newId();
  active.set(id, { operationId: id, kind, state: "queued" });
  publish(deps, id, kind, "queued");
  queue.enqueue({ id, kind: `checkpoint_${kind}`, priority: "manual", run: (ctx) => runJob(deps, id, kind, ctx) });
  return { operationId: id, kind };
}
