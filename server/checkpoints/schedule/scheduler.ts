// The scheduler of checkpoint maintenance: the daily automatic cleanup and
// thread expiry, with their commands (analysis, run now, cancel, what a
// saved policy asks for). Started where the compaction worker starts: on
// SQLite with the server, on PostgreSQL only in the instance holding the
// worker lease (one scheduler across instances), so scheduled runs never
// overlap another instance's. A foreground scheduler (the operator CLI) runs
// what its process asks for and never arms the daily timers or recovers.
import "server-only";
import type { ExpiryAge, MaintenanceAccepted, MaintenanceOperation } from "@/lib/checkpoints/maintenance-api";
import { AppError } from "@/server/errors";
import { refuseOutsideWindow } from "@/server/jobs/window-gate";
import { assertQueueFree } from "../cleanup/operations";
import { armCleanup } from "./cleanup-schedule";
import { enqueue, errorCodeOf, publishExpiry, runAnalysisJob, runPreparationJob } from "./expiry-jobs";
import { expiryArmed, type ExpirySaveEffects } from "./expiry-policy";
import { acceptPass, armExpiry, launchPass, startPass } from "./expiry-schedule";
import { finished, newOperation } from "./operation";
import { editRecord, readRecord } from "./records";
import { createSchedulerCore, type SchedulerCore, type SchedulerDeps } from "./scheduler-core";

export type { SchedulerDeps, ScheduleContext } from "./scheduler-core";

export type CheckpointScheduler = {
  start(): void;
  startForeground(): void;
  stop(): Promise<void>;
  isRunning(): boolean;
  /** Re-reads both records and re-arms (after a save, and on the record watch). */
  rearm(): Promise<void>;
  requestExpiryAnalysis(age: ExpiryAge): Promise<MaintenanceAccepted>;
  /**
   * Validates a "run now" and takes the record's slot (inside the caller's
   * audited transaction); `outsideWindow`: the administrator confirmed
   * running outside the maintenance window.
   */
  acceptExpiryRun(options: { expectedRevision: number; outsideWindow?: boolean }): Promise<MaintenanceOperation>;
  /** Queues an accepted pass (after the transaction that accepted it committed). */
  launchExpiry(operation: MaintenanceOperation, options?: { outsideWindow?: boolean }): Promise<void>;
  /** Cancels a thread expiry operation (queued, running, a preparation, or a pass waiting between slices). */
  cancelExpiry(operationId: string): Promise<void>;
  /** What a saved expiry policy asks for (stop, preparation, the first pass). */
  expirySaved(effects: ExpirySaveEffects, options?: { outsideWindow?: boolean }): Promise<void>;
  /** A saved cleanup policy: arm or disarm, stop what it disabled. */
  cleanupSaved(stopOperation: string | null): Promise<void>;
  /** When each timer fires next (status, tests). */
  nextTimers(): { cleanup: number | null; expiry: number | null };
  /** Resolves when the checkpoint queue is idle (tests). */
  idle(): Promise<void>;
};

function requireContext(core: SchedulerCore) {
  const context = core.context();
  if (!context) throw new AppError("unsupported_engine", "Checkpoint maintenance is not available on this database");
  return context;
}

export function createCheckpointScheduler(deps: SchedulerDeps): CheckpointScheduler {
  const core = createSchedulerCore(deps);
  const { state, slots, deps: d } = core;
  let watch: unknown = null;

  const rearm = async (options: { recovery?: boolean } = {}) => {
    try {
      await armCleanup(core, options);
      await armExpiry(core, options);
    } catch (error) {
      d.log.warn({ code: errorCodeOf(error) }, "checkpoint maintenance schedule not armed");
    }
  };
  const tick = () => {
    watch = null;
    if (!state.running || !d.watchMs) return;
    void rearm().finally(() => {
      if (state.running && d.watchMs) watch = d.timers.setTimeout(tick, d.watchMs);
    });
  };

  /** A preparation interrupted by a restart is started again (its backup was never published). */
  const recoverPreparation = async () => {
    const context = core.context();
    if (!context) return;
    const read = await readRecord(context.stores.schedule, "thread_expiry");
    if (read.state === "malformed") return;
    const prep = read.record.runtime.preparation;
    if (!prep.operationId || (prep.state !== "pending" && prep.state !== "running")) return;
    await editRecord(context.stores.schedule, "thread_expiry", d.clock.now(), (record) => {
      if (record.runtime.preparation.operationId !== prep.operationId) return { next: null, result: null };
      record.runtime.preparation = { ...record.runtime.preparation, state: "pending" };
      return { next: record, result: null };
    });
    startPreparation(prep.operationId);
  };

  const startPreparation = (operationId: string) => {
    const context = requireContext(core);
    const operation = newOperation({ id: operationId, kind: "expiry_preparation", trigger: "manual", nowMs: d.clock.now() });
    enqueue(core, operation, (ctx) =>
      runPreparationJob(core, context, operation, ctx, async () => {
        const outsideWindow = state.nextPassOutsideWindow;
        state.nextPassOutsideWindow = false;
        if (outsideWindow || core.gate.mayRun("")) await startPass(core, { trigger: "manual", outsideWindow });
        else await armExpiry(core);
      }),
    );
  };

  return {
    start() {
      if (state.running) return;
      state.running = true;
      state.scheduling = true;
      state.readyAtMs = d.clock.now();
      void recoverPreparation()
        .then(() => rearm({ recovery: true }))
        .catch((error: unknown) => d.log.warn({ code: errorCodeOf(error) }, "checkpoint maintenance recovery failed"));
      if (d.watchMs) watch = d.timers.setTimeout(tick, d.watchMs);
      d.log.info("checkpoint maintenance schedule started");
    },
    startForeground() {
      if (state.running) return;
      state.running = true;
      state.scheduling = false;
      state.readyAtMs = d.clock.now();
    },
    async stop() {
      if (!state.running) return;
      state.running = false;
      slots.cleanup.disarm();
      slots.expiry.disarm();
      if (watch) d.timers.clearTimeout(watch);
      watch = null;
      for (const abort of core.aborts.values()) abort.abort();
    },
    isRunning: () => state.running,
    rearm: () => rearm(),

    async requestExpiryAnalysis(age) {
      const context = requireContext(core);
      assertQueueFree(d.jobs);
      const operation = newOperation({ id: d.newId(), kind: "expiry_analysis", trigger: "manual", nowMs: d.clock.now(), age });
      enqueue(core, operation, (ctx) => runAnalysisJob(core, context, operation, age, ctx));
      return { operationId: operation.id, kind: operation.kind };
    },

    async acceptExpiryRun({ expectedRevision, outsideWindow }) {
      const context = requireContext(core);
      const read = await readRecord(context.stores.schedule, "thread_expiry");
      if (read.state === "malformed") throw new AppError("settings_malformed", "The stored thread expiry policy is malformed; save a new policy first.");
      const { record } = read;
      if (record.policy.revision !== expectedRevision) throw new AppError("conflict", "The thread expiry policy changed since it was read; reload and try again.");
      if (!expiryArmed(record)) throw new AppError("cleanup_not_approved", "Thread expiry is not enabled with a ready backup or skip choice.");
      refuseOutsideWindow({ window: d.window, nowMs: d.clock.now(), confirmed: outsideWindow === true });
      assertQueueFree(d.jobs);
      const waiting = record.runtime.activeOperation;
      if (waiting && waiting.kind !== "thread_expiry") throw new AppError("operation_active", "A thread expiry operation is already running");
      // A pass waiting for its continuation is taken over: it runs now.
      if (waiting) slots.expiry.disarm({ forgetWaiting: true });
      const accepted = await acceptPass(core, { trigger: "manual" });
      if (!accepted) throw new AppError("operation_active", "A checkpoint operation is already queued or running");
      return accepted;
    },

    launchExpiry: (operation, options) => launchPass(core, operation, options),

    async cancelExpiry(operationId) {
      const context = requireContext(core);
      const queued = d.jobs.queue.cancel(operationId);
      core.aborts.get(operationId)?.abort();
      const nowMs = d.clock.now();
      const ended = await editRecord(context.stores.schedule, "thread_expiry", nowMs, (record) => {
        const prep = record.runtime.preparation;
        if (prep.operationId === operationId && (prep.state === "pending" || prep.state === "running")) {
          record.runtime.preparation = { ...prep, state: "failed", errorCode: "preparation_cancelled" };
          return { next: record, result: "preparation" as const };
        }
        const active = record.runtime.activeOperation;
        // A pass waiting between slices has no job to stop: it ends here.
        if (active?.id === operationId && d.jobs.queue.running()?.id !== operationId) {
          record.runtime.activeOperation = null;
          record.runtime.latestRun = finished(active, { state: "cancelled", nowMs });
          return { next: record, result: "waiting" as const };
        }
        return { next: null, result: null };
      });
      if (ended === "waiting") {
        slots.expiry.disarm({ forgetWaiting: true });
        publishExpiry(core, { ...newOperation({ id: operationId, kind: "thread_expiry", trigger: "manual", nowMs }) }, "cancelled");
        await armExpiry(core);
      }
      if (!queued && !ended) throw new AppError("conflict", "No thread expiry operation with this id is running or waiting.");
    },

    async expirySaved(effects, options) {
      for (const id of effects.stopOperations) {
        d.jobs.queue.cancel(id);
        core.aborts.get(id)?.abort();
      }
      if (effects.stopOperations.length > 0) slots.expiry.disarm({ forgetWaiting: true });
      if (effects.startPreparation) {
        state.nextPassOutsideWindow = options?.outsideWindow === true;
        startPreparation(effects.startPreparation);
        return;
      }
      if (effects.startPass) {
        const outsideWindow = options?.outsideWindow === true;
        // A pass of the old revision may still be ending: the queue runs the new one after it.
        if (outsideWindow || core.gate.mayRun("")) {
          if (d.jobs.active.size === 0 || effects.stopOperations.length > 0) {
            await startPass(core, { trigger: "manual", outsideWindow });
            return;
          }
        }
      }
      await armExpiry(core);
    },

    async cleanupSaved(stopOperation) {
      if (stopOperation) d.jobs.queue.cancel(stopOperation);
      await armCleanup(core);
    },

    nextTimers: () => ({ cleanup: slots.cleanup.nextAt(), expiry: slots.expiry.nextAt() }),
    idle: () => d.jobs.queue.idle(),
  };
}
