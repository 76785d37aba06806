// When thread expiry passes run: daily once armed (enabled, prepared,
// approved for the current revision), inside MAINTENANCE_WINDOW when one is
// set; the first pass after an approval as soon as the window allows (or at
// once when the administrator confirmed running outside it). A pass that
// meets the window closing waits for the next opening, one that meets the
// maintenance guard held continues a minute later, one interrupted by a
// restart continues a minute after readiness, each after the last thread it
// finished. A finished pass is next due 24 hours after it ended.
import "server-only";
import { formatUtc, parseRfc3339 } from "@/lib/time/rfc3339";
import { writeAuditEntry } from "@/server/audit/record";
import { MINUTE_MS, nextDueAfterCompletePass, scheduledStartAt } from "@/server/jobs/schedule";
import { computeCutoff } from "@/server/compaction/eligibility/cutoff";
import type { MaintenanceOperation, MaintenanceTrigger } from "@/lib/checkpoints/maintenance-api";
import { enqueue, errorCodeOf, publishExpiry, runPassJob, type PassEnd } from "./expiry-jobs";
import { expiryArmed } from "./expiry-policy";
import { finished, newOperation } from "./operation";
import { editRecord, readRecord } from "./records";
import type { ScheduleContext, SchedulerCore } from "./scheduler-core";

/** Arms the next pass (a continuation, or the first or daily one); disarms when not armed. Server only. */
export function armExpiry(core: SchedulerCore, options: { recovery?: boolean } = {}): Promise<void> {
  return core.serially(() => armExpiryNow(core, options));
}

async function armExpiryNow(core: SchedulerCore, options: { recovery?: boolean } = {}): Promise<void> {
  const { state, slots, gate, deps } = core;
  if (!state.running || !state.scheduling) return;
  const context = core.context();
  if (!context) return;
  const read = await readRecord(context.stores.schedule, "thread_expiry");
  if (read.state === "malformed" || !expiryArmed(read.record)) {
    slots.expiry.disarm({ forgetWaiting: true });
    return;
  }
  const { runtime } = read.record;
  const nowMs = deps.clock.now();
  const waiting = runtime.activeOperation?.kind === "thread_expiry" ? runtime.activeOperation : null;
  // A pass in this process's queue (or one ending right now) arms what
  // follows when it ends; one another process runs is left to it. Only the
  // first look after a start takes over a pass the record still calls
  // running: its process died.
  if (waiting && (deps.jobs.active.has(waiting.id) || (waiting.state === "running" && !options.recovery))) return;
  if (waiting) {
    const base = waiting.errorCode === "maintenance_busy" ? nowMs + MINUTE_MS : Math.max(nowMs, state.readyAtMs + MINUTE_MS);
    slots.expiry.armContinuation(waiting.id, gate.startAt(waiting.id, base), () => void startPass(core, { trigger: waiting.trigger }));
    return;
  }
  // Never run under this approval: the first pass is due now (a minute after readiness, within the window).
  const first = runtime.nextDueAt === null;
  const at = scheduledStartAt({ nextDueAtMs: first ? null : parseRfc3339(runtime.nextDueAt), readyAtMs: state.readyAtMs, nowMs });
  slots.expiry.arm(gate.startAt(null, at), () => void startPass(core, { trigger: first ? "manual" : "scheduled" }));
}

/**
 * Takes the record's slot for a pass (a new one with its one cutoff, or the
 * one waiting for its continuation); null when not armed or the slot holds
 * another kind of operation. Call it inside the transaction that audits it;
 * launch the pass once that committed.
 */
export async function acceptPass(core: SchedulerCore, options: { trigger: MaintenanceTrigger; operationId?: string; takeOverRunning?: boolean }): Promise<MaintenanceOperation | null> {
  const { deps } = core;
  const context = core.context();
  if (!context) return null;
  const nowMs = deps.clock.now();
  return editRecord(context.stores.schedule, "thread_expiry", nowMs, (record) => {
    if (!expiryArmed(record)) return { next: null, result: null };
    const waiting = record.runtime.activeOperation;
    if (waiting && waiting.kind !== "thread_expiry") return { next: null, result: null };
    // A pass running here is never started twice. One the record says runs
    // elsewhere is taken over only by the schedule's continuation (the
    // server after a crash); a manual run answers operation_active.
    if (waiting && (deps.jobs.active.has(waiting.id) || (waiting.state === "running" && !options.takeOverRunning))) return { next: null, result: null };
    const op = waiting
      ? { ...waiting, state: "running" as const, errorCode: null }
      : newOperation({
          id: options.operationId ?? deps.newId(),
          kind: "thread_expiry",
          trigger: options.trigger,
          nowMs,
          state: "running",
          // The one cutoff of the pass, kept across its slices and restarts.
          cutoffMs: computeCutoff({ nowMs, age: record.policy.age }),
          age: record.policy.age,
          revision: record.policy.revision,
        });
    record.runtime.activeOperation = op;
    return { next: record, result: op };
  });
}

/** Queues the accepted pass, or lets it wait for the window (then the schedule arms its continuation). */
export function launchPass(core: SchedulerCore, operation: MaintenanceOperation, options: { outsideWindow?: boolean } = {}): Promise<void> {
  return core.serially(() => launchPassNow(core, operation, options));
}

async function launchPassNow(core: SchedulerCore, operation: MaintenanceOperation, options: { outsideWindow?: boolean }): Promise<void> {
  const context = core.context();
  if (!context) return;
  if (options.outsideWindow) core.gate.override(operation.id);
  if (!core.gate.mayRun(operation.id)) {
    await armExpiryNow(core);
    return;
  }
  enqueue(core, operation, async (ctx) => {
    const end = await runPassJob(core, context, operation.id, ctx);
    if (end) await endSlice(core, context, end);
    // Armed once the pass has left the queue's active map (a continuation, or tomorrow's pass).
    return () => armExpiry(core);
  });
}

/**
 * Starts a pass, or continues the one the record holds (timers, saves).
 * Quietly nothing when not armed (the next save or finished job re-arms);
 * retried in a minute while another checkpoint operation is in the queue.
 */
export function startPass(core: SchedulerCore, options: { trigger: MaintenanceTrigger; outsideWindow?: boolean }): Promise<MaintenanceOperation | null> {
  let started: MaintenanceOperation | null = null;
  return core
    .serially(async () => {
      const { deps, slots } = core;
      if (deps.jobs.active.size > 0) {
        slots.expiry.arm(deps.clock.now() + MINUTE_MS, () => void startPass(core, options));
        return;
      }
      started = await acceptPass(core, { ...options, takeOverRunning: true });
      if (started) await launchPassNow(core, started, options);
    })
    .then(() => started);
}

/** Records how a slice ended: finished (audited, next due tomorrow) or waiting for its continuation. */
async function endSlice(core: SchedulerCore, context: ScheduleContext, end: PassEnd): Promise<void> {
  const { deps } = core;
  const nowMs = deps.clock.now();
  const id = end.operation.id;
  const pausing = end.outcome === "window_closed" || end.outcome === "maintenance_busy" || end.outcome === "shutdown";
  // The server waits for the window or the guard; the operator CLI cannot, so
  // its slice ends the pass there (the next pass continues the work). A
  // shutdown always leaves the pass for the server to continue.
  const waits = pausing && (core.state.scheduling || end.outcome === "shutdown");
  const state = end.outcome === "done" ? "succeeded" : end.outcome === "stopped" ? "cancelled" : end.outcome === "failed" ? "failed" : "partial";
  const code = end.outcome === "done" || end.outcome === "stopped" ? null : end.outcome === "failed" ? end.operation.errorCode : end.outcome;
  const done = await editRecord(context.stores.schedule, "thread_expiry", nowMs, (record) => {
    const active = record.runtime.activeOperation;
    if (waits) {
      if (active?.id !== id) return { next: null, result: null };
      record.runtime.activeOperation = { ...end.operation, state: "partial", errorCode: end.outcome };
      return { next: record, result: null };
    }
    const ended = finished(end.operation, { state, nowMs, errorCode: code });
    if (active?.id === id) record.runtime.activeOperation = null;
    record.runtime.latestRun = ended;
    record.runtime.lastErrorCode = code;
    if (end.outcome !== "policy_changed") record.runtime.nextDueAt = formatUtc(nextDueAfterCompletePass(nowMs));
    return { next: record, result: ended };
  });
  if (done) {
    publishExpiry(core, done, done.state);
    deps.bus.publish({ type: "maintenance_finished", operationId: id, kind: "thread_expiry", trigger: done.trigger, state: done.state, threads: done.threads, removedRows: done.checkpoints + done.writes, removedBytes: done.bytes });
    await writeAuditEntry(context.stores.audit, {
      atMs: nowMs,
      actor: "system",
      kind: "threads.expired",
      detail: { operationId: id, threads: done.threads, checkpoints: done.checkpoints, freedBytes: done.bytes, skipped: done.skipped, scheduled: done.trigger === "scheduled" },
      errorCode: done.state === "succeeded" ? null : (done.errorCode ?? done.state),
    }).catch((error: unknown) => deps.log.warn({ code: errorCodeOf(error) }, "thread expiry audit entry not written"));
    deps.log.info({ operationId: id, state: done.state, threads: done.threads, checkpoints: done.checkpoints, bytes: done.bytes }, "thread expiry pass finished");
  } else {
    publishExpiry(core, end.operation, "running");
  }
}
