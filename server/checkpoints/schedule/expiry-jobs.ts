// The job bodies of thread expiry, each on the runtime's checkpoint queue
// (listed in its active map, so Clean up and analysis answer 409 meanwhile):
// - analysis: what a period would expire now (threads, checkpoints, writes,
//   bytes, threads kept by reason); deletes nothing;
// - preparation: the verified backup of the backup choice (maintenance
//   guard, compaction's backup code), arming the approved revision;
// - the pass (expiry-pass.ts), after the backup receipt checks out, with its
//   progress, continuation and end kept in the record.
import "server-only";
import type { ExpiryAge, MaintenanceOperation } from "@/lib/checkpoints/maintenance-api";
import type { OperationState } from "@/lib/events/api";
import { formatUtc } from "@/lib/time/rfc3339";
import { isAppError } from "@/server/errors";
import type { JobContext } from "@/server/jobs/serial-queue";
import { createBackup } from "@/server/maintenance/backups/create";
import { probeReceipt, verifyReceiptCached } from "@/server/maintenance/backups/verify";
import { computeCutoff } from "@/server/compaction/eligibility/cutoff";
import { analyzeExpiry, runExpiryPass, type ExpiryOutcome } from "./expiry-pass";
import { countsOf, finished, newOperation, withCounts, type ExpiryCounts } from "./operation";
import { editRecord, readRecord } from "./records";
import type { ScheduleContext, SchedulerCore } from "./scheduler-core";

export function errorCodeOf(error: unknown): string {
  return isAppError(error) ? error.code : "internal_error";
}

/** Live progress of an expiry operation (SSE); counts only. */
export function publishExpiry(core: SchedulerCore, operation: MaintenanceOperation, state: OperationState, fraction: number | null = null): void {
  core.deps.bus.publish({
    type: "operation",
    operationId: operation.id,
    kind: operation.kind === "expiry_analysis" ? "expiry_analysis" : operation.kind === "expiry_preparation" ? "expiry_preparation" : "thread_expiry",
    state,
    progress: { scannedRows: operation.threadsScanned, eligibleMessages: operation.threads, changedMessages: operation.kind === "thread_expiry" ? operation.threads : 0, payloadBytes: operation.bytes, fraction },
  });
}

/**
 * Runs `body` as a queued job listed in the checkpoint queue's active map.
 * What the body returns runs once the job has left that map (a follow-up
 * that starts another operation, such as the first pass after a backup).
 */
export function enqueue(core: SchedulerCore, operation: MaintenanceOperation, body: (ctx: JobContext) => Promise<void | (() => Promise<void>)>): void {
  const { jobs } = core.deps;
  const kind = operation.kind === "checkpoint_cleanup" ? "cleanup" : operation.kind;
  jobs.active.set(operation.id, { operationId: operation.id, kind, state: "queued", trigger: operation.trigger });
  publishExpiry(core, operation, "queued");
  jobs.queue.enqueue({
    id: operation.id,
    kind: operation.kind,
    priority: operation.trigger === "scheduled" ? "scheduled" : "manual",
    run: async (ctx) => {
      jobs.active.set(operation.id, { operationId: operation.id, kind, state: "running", trigger: operation.trigger });
      let next: void | (() => Promise<void>);
      try {
        next = await body(ctx);
      } finally {
        jobs.active.delete(operation.id);
      }
      if (next) await next();
    },
  });
}

export async function runAnalysisJob(core: SchedulerCore, context: ScheduleContext, operation: MaintenanceOperation, age: ExpiryAge, ctx: JobContext): Promise<void> {
  const { deps } = core;
  const store = context.stores.schedule;
  const cutoffMs = computeCutoff({ nowMs: deps.clock.now(), age });
  let op: MaintenanceOperation = { ...operation, state: "running", cutoff: formatUtc(cutoffMs) };
  publishExpiry(core, op, "running");
  let state: MaintenanceOperation["state"] = "succeeded";
  let code: string | null = null;
  try {
    const result = await analyzeExpiry(
      { store, locks: deps.locks, clock: deps.clock, log: deps.log, limits: deps.limits, shouldStop: () => ctx.shouldStop(), onProgress: (counts) => publishExpiry(core, withCounts(op, counts, null), "running") },
      { cutoffMs },
    );
    op = withCounts(op, result.counts, null);
    if (result.stopped) state = "cancelled";
  } catch (error) {
    state = "failed";
    code = errorCodeOf(error);
    deps.log.warn({ operationId: op.id, code }, "thread expiry analysis failed");
  }
  const done = finished(op, { state, nowMs: deps.clock.now(), errorCode: code });
  await editRecord(store, "thread_expiry", deps.clock.now(), (record) => {
    record.runtime.latestAnalysis = done;
    return { next: record, result: null };
  });
  publishExpiry(core, done, state);
}

/** Backup preparation; on success the approved revision is armed and `onArmed` (returned, run after the job) starts the first pass. */
export async function runPreparationJob(
  core: SchedulerCore,
  context: ScheduleContext,
  operation: MaintenanceOperation,
  ctx: JobContext,
  onArmed: () => Promise<void>,
): Promise<void | (() => Promise<void>)> {
  const { deps } = core;
  const store = context.stores.schedule;
  const id = operation.id;
  const current = (record: Awaited<ReturnType<typeof readRecord<"thread_expiry">>>) =>
    record.state !== "malformed" && record.record.runtime.preparation.operationId === id && record.record.policy.enabled && record.record.runtime.preparation.revision === record.record.policy.revision;
  const started = await editRecord(store, "thread_expiry", deps.clock.now(), (record) => {
    const prep = record.runtime.preparation;
    if (prep.operationId !== id || prep.state !== "pending" || !record.policy.enabled) return { next: null, result: false };
    record.runtime.preparation = { ...prep, state: "running", startedAt: formatUtc(deps.clock.now()), backupBytes: null };
    return { next: record, result: true };
  });
  if (!started) return;
  publishExpiry(core, operation, "running");
  const abort = new AbortController();
  core.aborts.set(id, abort);
  const fail = async (code: string) => {
    await editRecord(store, "thread_expiry", deps.clock.now(), (record) => {
      if (record.runtime.preparation.operationId !== id) return { next: null, result: null };
      record.runtime.preparation = { ...record.runtime.preparation, state: "failed", errorCode: code };
      record.runtime.lastErrorCode = code;
      return { next: record, result: null };
    });
    publishExpiry(core, operation, code === "preparation_cancelled" ? "cancelled" : "failed");
  };
  try {
    let lease = await deps.guard.tryAcquire({ owner: `expiry-preparation:${id}`, kind: "backup" });
    while (!lease) {
      if (ctx.shouldStop() || abort.signal.aborted) return fail("preparation_cancelled");
      await core.wait(1000);
      lease = await deps.guard.tryAcquire({ owner: `expiry-preparation:${id}`, kind: "backup" });
    }
    let receipt;
    try {
      receipt = await (deps.createBackupFn ?? createBackup)({
        store: context.stores.maintenance,
        dbFile: context.dbFile,
        clock: deps.clock,
        label: "preparation",
        lease,
        guard: deps.guard,
        signal: abort.signal,
        log: deps.log,
        onProgress: (progress) => publishExpiry(core, { ...operation, backupBytes: progress }, "running"),
      });
    } catch (error) {
      const code = abort.signal.aborted ? "preparation_cancelled" : errorCodeOf(error) === "maintenance_busy" ? "backup_failed" : errorCodeOf(error);
      deps.log.warn({ operationId: id, code }, "thread expiry preparation backup failed");
      return fail(code);
    } finally {
      lease.release();
    }
    const armed = await editRecord(store, "thread_expiry", deps.clock.now(), (record) => {
      if (!current({ state: "ok", record, storedRevision: record.policy.revision })) return { next: null, result: false };
      record.runtime.preparation = { ...record.runtime.preparation, state: "ready", receipt, errorCode: null, verifiedAt: formatUtc(deps.clock.now()) };
      record.runtime.approvedRevision = record.policy.revision;
      return { next: record, result: true };
    });
    deps.log.info({ operationId: id, armed, sizeBytes: receipt.sizeBytes }, "thread expiry preparation finished");
    publishExpiry(core, operation, armed ? "succeeded" : "cancelled");
    if (armed) return onArmed;
  } finally {
    core.aborts.delete(id);
  }
}

/**
 * The backup check before a pass deletes anything: a receipt verified when
 * it was made is probed (still there, same size); an unverified one is
 * verified fully. A failure disarms expiry until it is prepared again.
 */
async function checkBackup(core: SchedulerCore, context: ScheduleContext, revision: number): Promise<string | null> {
  const read = await readRecord(context.stores.schedule, "thread_expiry");
  if (read.state === "malformed") return "settings_malformed";
  const prep = read.record.runtime.preparation;
  if (prep.choice === "skip") return null;
  const receipt = prep.receipt;
  if (!receipt || !("sha256" in receipt)) return "backup_missing";
  const result = prep.verifiedAt
    ? await probeReceipt({ dbFile: context.dbFile, receipt })
    : await verifyReceiptCached({ store: context.stores.maintenance, dbFile: context.dbFile, receipt, cache: core.cache });
  if (result.ok) return null;
  await editRecord(context.stores.schedule, "thread_expiry", core.deps.clock.now(), (record) => {
    if (record.policy.revision !== revision) return { next: null, result: null };
    record.runtime.preparation = { ...record.runtime.preparation, state: "failed", errorCode: result.code, verifiedAt: null };
    record.runtime.approvedRevision = null;
    record.runtime.lastErrorCode = result.code;
    return { next: record, result: null };
  });
  core.deps.log.warn({ code: result.code }, "thread expiry backup no longer verifies; expiry is off until prepared again");
  return result.code;
}

export type PassEnd = { outcome: ExpiryOutcome | "failed" | "shutdown"; operation: MaintenanceOperation };

/** One slice of a pass: from the record's cursor until done, stopped, or waiting (window, guard). */
export async function runPassJob(core: SchedulerCore, context: ScheduleContext, operationId: string, ctx: JobContext): Promise<PassEnd | null> {
  const { deps } = core;
  const store = context.stores.schedule;
  const read = await readRecord(store, "thread_expiry");
  if (read.state === "malformed") return null;
  const active = read.record.runtime.activeOperation;
  if (!active || active.id !== operationId || active.kind !== "thread_expiry" || active.revision === null || active.cutoff === null) return null;
  let op: MaintenanceOperation = { ...active, state: "running", errorCode: null };
  publishExpiry(core, op, "running");
  const backup = await checkBackup(core, context, active.revision);
  if (backup) return { outcome: "failed", operation: { ...op, errorCode: backup } };
  let counts: ExpiryCounts = countsOf(active);
  let cursor = active.cursor ?? null;
  try {
    const result = await runExpiryPass(
      {
        store,
        locks: deps.locks,
        clock: deps.clock,
        log: deps.log,
        limits: deps.limits,
        guard: deps.guard,
          cache: deps.runHistory,
        mayRun: () => core.gate.mayRun(operationId),
        shouldStop: () => ctx.shouldStop(),
        pause: () => new Promise((resolve) => setImmediate(resolve)),
        onProgress: async (now, at) => {
          counts = now;
          cursor = at;
          op = withCounts(op, now, at);
          // Durable progress: a restart continues after the last thread finished.
          await editRecord(store, "thread_expiry", deps.clock.now(), (record) => {
            if (record.runtime.activeOperation?.id !== operationId) return { next: null, result: null };
            record.runtime.activeOperation = op;
            return { next: record, result: null };
          });
          publishExpiry(core, op, "running");
        },
      },
      { operationId, cutoffMs: Date.parse(active.cutoff), revision: active.revision, cursor, counts },
    );
    op = withCounts(op, result.counts, result.cursor);
    const outcome = result.outcome === "stopped" && ctx.stopReason() === "shutdown" ? "shutdown" : result.outcome;
    return { outcome, operation: op };
  } catch (error) {
    deps.log.warn({ operationId, code: errorCodeOf(error) }, "thread expiry pass failed");
    return { outcome: "failed", operation: { ...withCounts(op, counts, cursor), errorCode: errorCodeOf(error) } };
  }
}

export { newOperation };
