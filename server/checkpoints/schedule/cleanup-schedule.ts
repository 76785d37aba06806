// Automatic checkpoint cleanup: once enabled, the exhaustive retention
// engine (the same operation as Clean up, on the same queue, writing the same
// result) runs daily, inside MAINTENANCE_WINDOW when one is set. A run that
// meets the maintenance guard held by another heavy operation, or the window
// closing, ends its slice partial (nothing more is changed) and continues
// after the last thread it finished: a minute later for the guard, at the
// next opening for the window, a minute after readiness after a restart.
// A complete run (or a failed one) is next due 24 hours after it ended.
import "server-only";
import type { RetentionResult } from "@/lib/checkpoints/api";
import { parseRfc3339, formatUtc } from "@/lib/time/rfc3339";
import { writeAuditEntry } from "@/server/audit/record";
import { MINUTE_MS, nextDueAfterCompletePass, scheduledStartAt } from "@/server/jobs/schedule";
import { isAppError } from "@/server/errors";
import { startOperation } from "../cleanup/operations";
import { finished, newOperation } from "./operation";
import { editRecord, readRecord } from "./records";
import type { SchedulerCore } from "./scheduler-core";

function errorCode(error: unknown): string {
  return isAppError(error) ? error.code : "internal_error";
}

/** Arms the next scheduled run (or the continuation of a partial one); disarms when disabled. */
export function armCleanup(core: SchedulerCore, options: { recovery?: boolean } = {}): Promise<void> {
  return core.serially(() => armCleanupNow(core, options));
}

async function armCleanupNow(core: SchedulerCore, options: { recovery?: boolean } = {}): Promise<void> {
  const { state, slots, gate, deps } = core;
  if (!state.running || !state.scheduling) return;
  const context = core.context();
  if (!context) return;
  const read = await readRecord(context.stores.schedule, "checkpoint_cleanup");
  if (read.state === "malformed" || !read.record.policy.enabled) {
    slots.cleanup.disarm({ forgetWaiting: true });
    return;
  }
  const { runtime } = read.record;
  const nowMs = deps.clock.now();
  const waiting = runtime.activeOperation;
  // A run in this process's queue (or one ending right now) arms what
  // follows when it ends; one another process runs is left to it. Only the
  // first look after a start takes over a run the record still calls
  // running: its process died.
  if (waiting && (deps.jobs.active.has(waiting.id) || (waiting.state === "running" && !options.recovery))) return;
  if (waiting) {
    // A partial run continues after its last thread (after a restart: a minute after readiness).
    const at = Math.max(scheduledStartAt({ nextDueAtMs: null, readyAtMs: state.readyAtMs, nowMs }), nowMs);
    slots.cleanup.armContinuation(waiting.id, gate.startAt(waiting.id, waiting.state === "partial" && waiting.errorCode === "maintenance_busy" ? Math.max(at, nowMs + MINUTE_MS) : at), () => void fireCleanup(core));
    return;
  }
  const at = scheduledStartAt({ nextDueAtMs: parseRfc3339(runtime.nextDueAt), readyAtMs: state.readyAtMs, nowMs });
  slots.cleanup.arm(gate.startAt(null, at), () => void fireCleanup(core));
}

/**
 * The timer fired: start (or continue) the scheduled run unless another
 * checkpoint operation is in the queue. Serialized with the arming steps, so
 * none of them sees the run's slot taken before the run is in the queue.
 */
export function fireCleanup(core: SchedulerCore): Promise<void> {
  return core.serially(() => fireCleanupNow(core));
}

async function fireCleanupNow(core: SchedulerCore): Promise<void> {
  const { deps, slots, gate } = core;
  const context = core.context();
  if (!context) return;
  try {
    if (deps.jobs.active.size > 0) {
      // Another checkpoint operation runs: try again in a minute.
      slots.cleanup.arm(gate.startAt(null, deps.clock.now() + MINUTE_MS), () => void fireCleanup(core));
      return;
    }
    const nowMs = deps.clock.now();
    const accepted = await editRecord(context.stores.schedule, "checkpoint_cleanup", nowMs, (record) => {
      if (!record.policy.enabled) return { next: null, result: null };
      const operation = record.runtime.activeOperation
        ? { ...record.runtime.activeOperation, state: "running" as const, errorCode: null }
        : newOperation({ id: deps.newId(), kind: "checkpoint_cleanup", trigger: "scheduled", nowMs, state: "running", revision: record.policy.revision });
      record.runtime.activeOperation = operation;
      return { next: record, result: operation };
    });
    if (!accepted) return;
    if (!gate.mayRun(accepted.id)) {
      // The window closed between the timer and now: wait for the next opening.
      await armCleanupNow(core);
      return;
    }
    startOperation(core.operationDeps(context), "cleanup", {
      trigger: "scheduled",
      onGuardBusy: "defer",
      mayRun: () => gate.mayRun(accepted.id),
      afterThreadId: accepted.cursor ?? null,
      operationId: accepted.id,
      onFinished: (result, lastThreadId) => finishCleanup(core, accepted.id, result, lastThreadId),
    });
  } catch (error) {
    deps.log.info({ code: errorCode(error) }, "scheduled checkpoint cleanup not started");
    slots.cleanup.arm(gate.startAt(null, deps.clock.now() + MINUTE_MS), () => void fireCleanup(core));
  }
}

/** Records how the slice ended, audits a finished run and arms what follows. */
async function finishCleanup(core: SchedulerCore, operationId: string, result: RetentionResult, lastThreadId: string | null): Promise<void> {
  const { deps } = core;
  const context = core.context();
  if (!context) return;
  const nowMs = deps.clock.now();
  const reclaimed = {
    checkpoints: Math.max(0, result.before.checkpoints - result.after.checkpoints),
    writes: Math.max(0, result.before.writes - result.after.writes),
    bytes: Math.max(0, result.before.checkpointBytes + result.before.writesBytes - result.after.checkpointBytes - result.after.writesBytes),
  };
  const ended = await editRecord(context.stores.schedule, "checkpoint_cleanup", nowMs, (record) => {
    const active = record.runtime.activeOperation;
    if (!active || active.id !== operationId) return { next: null, result: null };
    // Counts add up over the slices of one run.
    const merged = {
      ...active,
      threadsScanned: active.threadsScanned + result.threadsScanned,
      threads: active.threads + result.threadsChanged,
      checkpoints: active.checkpoints + reclaimed.checkpoints,
      writes: active.writes + reclaimed.writes,
      bytes: active.bytes + reclaimed.bytes,
    };
    if (result.state === "partial") {
      record.runtime.activeOperation = { ...merged, state: "partial", errorCode: result.errorCode, cursor: lastThreadId };
      return { next: record, result: null };
    }
    const state = result.state === "succeeded" ? "succeeded" : result.state === "cancelled" ? "cancelled" : "failed";
    const done = finished(merged, { state, nowMs, errorCode: result.errorCode });
    record.runtime.activeOperation = null;
    record.runtime.latestRun = done;
    record.runtime.lastErrorCode = result.errorCode;
    record.runtime.nextDueAt = formatUtc(nextDueAfterCompletePass(nowMs));
    return { next: record, result: done };
  });
  if (ended) {
    await writeAuditEntry(context.stores.audit, {
      atMs: nowMs,
      actor: "system",
      kind: "checkpoints.scheduled_cleanup",
      detail: { operationId, threads: ended.threads, checkpoints: ended.checkpoints, freedBytes: ended.bytes },
      errorCode: ended.state === "succeeded" ? null : (ended.errorCode ?? ended.state),
    });
  }
  await armCleanup(core);
}
