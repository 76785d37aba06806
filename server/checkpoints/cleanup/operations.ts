import "server-only";
// Checkpoint analysis / cleanup operations: one serial queue per runtime,
// each thread under the shared maintenance guard (kind "compaction"; a held
// guard means waiting, not failing) and its thread lock. Progress goes to the
// event bus; only the latest result is stored (settings `checkpoint_retention`).
import type { ActiveOperation, CheckpointOperationKind, OperationAccepted, RetentionResult } from "@/lib/checkpoints/api";
import type { MaintenanceTrigger } from "@/lib/checkpoints/maintenance-api";
import type { OperationState } from "@/lib/events/api";
import type { Clock } from "@/server/clock";
import { AppError, isAppError } from "@/server/errors";
import type { EventBus } from "@/server/events/bus";
import { createSerialQueue, type JobContext, type SerialQueue } from "@/server/jobs/serial-queue";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "@/server/maintenance/guard";
import type { CheckpointStore } from "../store";
import type { ThreadLocks } from "../thread-lock";
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
  /** CHECKPOINT_HANDLE_TTL_DAYS: run handles younger than this are kept. */
  handleTtlDays: number;
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

/** A scheduled cleanup found the maintenance guard held (or the window closed) and ends its slice; it continues later. */
class Deferred extends Error {
  constructor(readonly code: "maintenance_busy" | "maintenance_window_closed") {
    super(code);
  }
}

/** How a cleanup runs beyond the manual defaults. */
export type CleanupRunOptions = {
  trigger: MaintenanceTrigger;
  /**
   * `wait` (manual): a held maintenance guard is waited for; `defer`
   * (scheduled): the run ends partial with maintenance_busy, changing
   * nothing more, and the schedule continues it later.
   */
  onGuardBusy: "wait" | "defer";
  /** Asked before each thread: false once the maintenance window closed (the run ends partial). */
  mayRun?: () => boolean;
  /** Continue after this thread id (a continuation of a partial run). */
  afterThreadId?: string | null;
  /** Called once the result is stored, with the last thread finished. */
  onFinished?: (result: RetentionResult, lastThreadId: string | null) => Promise<void> | void;
  /** Use this operation id (the schedule records it before the job starts). */
  operationId?: string;
};

const MANUAL: CleanupRunOptions = { trigger: "manual", onGuardBusy: "wait" };

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

type Tables = NonNullable<RetentionResult["tablesAtStart"]>;

function sameTables(a: Tables, b: Tables): boolean {
  return a.checkpoints.rows === b.checkpoints.rows && a.checkpoints.bytes === b.checkpoints.bytes && a.writes.rows === b.writes.rows && a.writes.bytes === b.writes.bytes;
}

/** The tables' size now, or null when it cannot be read (the analysis then cannot vouch for the current state). */
async function readTables(deps: OperationDeps): Promise<Tables | null> {
  try {
    return await deps.store.tableUsage();
  } catch {
    return null;
  }
}

function toResult(id: string, kind: CheckpointOperationKind, startedAtMs: number, finishedAtMs: number, report: EngineReport | null, state: RetentionResult["state"], errorCode: string | null, trigger: MaintenanceTrigger, tables: { start: Tables | null; end: Tables | null }): RetentionResult {
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
    trigger,
    ...(tables.start ? { tablesAtStart: tables.start } : {}),
    // A cleanup changes the tables itself; only another writer's change counts
    // (and an analysis that could not read them is taken as changed: fail closed).
    changedDuringScan: kind === "analysis" && (!tables.start || !tables.end || !sameTables(tables.start, tables.end)),
  };
}

async function underLease<T>(deps: OperationDeps, id: string, ctx: JobContext, run: CleanupRunOptions, fn: () => Promise<T>): Promise<T> {
  if (run.mayRun && !run.mayRun()) throw new Deferred("maintenance_window_closed");
  let lease = await deps.guard.tryAcquire({ owner: `checkpoint-retention:${id}`, kind: "compaction" });
  while (!lease) {
    if (ctx.shouldStop()) throw new Stopped();
    if (run.onGuardBusy === "defer") throw new Deferred("maintenance_busy");
    await deps.wait(LEASE_RETRY_MS);
    lease = await deps.guard.tryAcquire({ owner: `checkpoint-retention:${id}`, kind: "compaction" });
  }
  try {
    return await fn();
  } finally {
    lease.release();
  }
}

async function runJob(deps: OperationDeps, id: string, kind: CheckpointOperationKind, ctx: JobContext, run: CleanupRunOptions): Promise<void> {
  const { active } = deps.jobs;
  active.set(id, { operationId: id, kind, state: "running", trigger: run.trigger });
  publish(deps, id, kind, "running");
  const startedAtMs = deps.clock.now();
  // What the analysis describes: the tables as it found them (the status
  // compares them with the current ones before Clean up may rely on it).
  const tablesAtStart = await readTables(deps);
  let report: EngineReport | null = null;
  let state: RetentionResult["state"] = "succeeded";
  let errorCode: string | null = null;
  let lastThreadId: string | null = run.afterThreadId ?? null;
  const after = run.afterThreadId ?? null;
  try {
    const threadIds = after === null ? undefined : (await deps.store.listThreadIds()).filter((threadId) => threadId > after);
    report = await runEngine({
      threadIds,
      store: deps.store,
      locks: deps.locks,
      cache: deps.cache,
      dryRun: kind === "analysis",
      handles: { ttlDays: deps.handleTtlDays, nowMs: deps.clock.now() },
      graftLinks: true,
      keepRunHistoryCarrier: true,
      shouldStop: () => ctx.shouldStop(),
      around: (fn) => underLease(deps, id, ctx, run, fn),
      onThread: (thread, _done, total, soFar) => {
        lastThreadId = thread.threadId;
        publish(deps, id, kind, "running", soFar, total);
      },
      onDeferred: (error) => error instanceof Deferred,
    });
    if (report.deferred) {
      state = "partial";
      errorCode = (report.deferred as Deferred).code;
    } else if (report.stopped) state = "cancelled";
  } catch (error) {
    state = error instanceof Stopped ? "cancelled" : "failed";
    errorCode = error instanceof Stopped ? null : isAppError(error) ? error.code : "internal_error";
    deps.log.warn({ operationId: id, kind, err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "checkpoint operation ended early");
  }
  // A scheduled run stopped by shutdown is not cancelled: it continues after the restart.
  if (state === "cancelled" && run.trigger === "scheduled" && ctx.stopReason() === "shutdown") {
    state = "partial";
    errorCode = "shutdown";
  }
  const tables = { start: tablesAtStart, end: await readTables(deps) };
  const result = toResult(id, kind, startedAtMs, deps.clock.now(), report, state, errorCode, run.trigger, tables);
  try {
    await writeResult(deps.store, result, deps.clock.now());
  } finally {
    active.delete(id);
    publish(deps, id, kind, state, report ?? undefined, report?.threads.length);
    if (kind === "cleanup") {
      deps.bus.publish({
        type: "maintenance_finished",
        operationId: id,
        kind: "checkpoint_cleanup",
        trigger: run.trigger,
        state,
        threads: result.threadsChanged,
        removedRows: result.before.checkpoints + result.before.writes - result.after.checkpoints - result.after.writes,
        removedBytes: result.before.checkpointBytes + result.before.writesBytes - result.after.checkpointBytes - result.after.writesBytes,
      });
    }
    deps.log.info({ operationId: id, kind, state, trigger: run.trigger, threads: report?.threads.length ?? 0 }, "checkpoint operation finished");
  }
  await run.onFinished?.(result, lastThreadId);
}

/** 409 operation_active while any checkpoint operation (cleanup, analysis, thread expiry) is queued or running here. */
export function assertQueueFree(jobs: CheckpointQueue): void {
  if (jobs.active.size > 0) throw new AppError("operation_active", "A checkpoint operation is already queued or running");
}

/** Queues an analysis or cleanup; 409 operation_active while one is queued or running. */
export function startOperation(deps: OperationDeps, kind: CheckpointOperationKind, run: CleanupRunOptions = MANUAL): OperationAccepted {
  const { queue, active } = deps.jobs;
  assertQueueFree(deps.jobs);
  const id = run.operationId ?? deps.newId();
  active.set(id, { operationId: id, kind, state: "queued", trigger: run.trigger });
  publish(deps, id, kind, "queued");
  queue.enqueue({ id, kind: `checkpoint_${kind}`, priority: run.trigger === "scheduled" ? "scheduled" : "manual", run: (ctx) => runJob(deps, id, kind, ctx, run) });
  return { operationId: id, kind };
}
