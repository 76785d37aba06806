// The one retention worker (TPR-SCH-01..08): a serial queue for analysis,
// preparation and cleanup, the persisted daily schedule, continuations, and
// recovery after a restart. Durable state lives in the retention record; the
// event bus only carries live progress. The parts share one core
// (worker-core.ts); the schedule is schedule.ts, the record watch and relay
// pickup record-watch.ts, the job bodies jobs.ts and cleanup-job.ts (a
// cleanup slice's batches may run on a worker thread, cleanup-slice.ts).
import "server-only";
import { betweenSlicesInRecord } from "../policy/between-slices";
import { acceptAnalysis, acceptCancel, acceptCleanup } from "../policy/commands";
import { readRetentionRecord } from "../policy/record";
import { createCleanupJob } from "./cleanup-job";
import type { RelayedCommand } from "./command-relay";
import type { JobHost } from "./job-host";
import { createAnalysisJob, createPreparationJob } from "./jobs";
import { createRecordWatch, type RecordWatch } from "./record-watch";
import { relayedCancel } from "./relay-intake";
import { createSchedule, type Schedule } from "./schedule";
import { createWorkerCore, type WorkerCore, type WorkerJobs } from "./worker-core";
import type { RetentionWorker, RetentionWorkerDeps } from "./worker-types";
export type { RetentionWorker, RetentionWorkerDeps } from "./worker-types";

export function createRetentionWorker(deps: RetentionWorkerDeps): RetentionWorker {
  const { store, clock, log } = deps;
  const core = createWorkerCore(deps);
  const { queue, slot, aborts, state } = core;

  // A job's end arms the schedule, and the schedule enqueues jobs: the job
  // host reaches the schedule made just below.
  const host: JobHost = {
    deps,
    queue,
    gate: core.gate,
    cache: core.cache,
    aborts,
    isRunning: () => state.running,
    initialCleanupPending: () => state.initialCleanupPending,
    publish: core.publish,
    endOrphan: core.endOrphan,
    setContinuation: (operationId, requestedAt) => schedule.setContinuation(operationId, requestedAt),
    scheduleNextPass: () => schedule.scheduleNextPass(),
    startInitialCleanup: () => schedule.startInitialCleanup(),
    afterCleanupJob: (kind) => schedule.afterCleanupJob(kind),
  };
  const jobs: WorkerJobs = {
    analysis: createAnalysisJob(host),
    cleanup: createCleanupJob(host),
    preparation: createPreparationJob(host),
  };
  const schedule = createSchedule(core, jobs);
  const watch = createRecordWatch(core, jobs, schedule);
  const commands = createWorkerCommands(core, jobs, schedule, watch);

  return {
    start() {
      if (state.running) return;
      state.running = true;
      state.readyAtMs = clock.now();
      const recovered = schedule.recover();
      watch.start();
      log.info(recovered, "retention worker started");
    },
    startForeground() {
      if (state.running) return;
      state.running = true;
      state.scheduling = false;
      state.readyAtMs = clock.now();
    },
    async stop() {
      if (!state.running) return;
      state.running = false;
      slot.disarm();
      watch.stop();
      for (const abort of aborts.values()) abort.abort();
      await queue.stop();
      log.info("retention worker stopped");
    },
    isRunning: () => state.running,
    ...commands,
    idle: () => queue.idle(),
    nextTimerAt: () => slot.nextAt(),
    betweenSlices: () => {
      const waiting = slot.waiting();
      if (waiting && !state.suspended && queue.running()?.id !== waiting.id) return waiting.id;
      return core.relayed() ? betweenSlicesInRecord(store) : null;
    },
  };
}

type WorkerCommands = Pick<RetentionWorker, "requestAnalysis" | "requestRun" | "cancel" | "policySaved"> & {
  receiveCommand(command: RelayedCommand): void;
};

function createWorkerCommands(
  core: WorkerCore,
  jobs: WorkerJobs,
  schedule: Pick<Schedule, "scheduleNextPass" | "startInitialCleanup">,
  watch: Pick<RecordWatch, "pickUpQueued">,
): WorkerCommands {
  const { deps, queue, gate, slot, aborts, state, ctx } = core;
  const { store } = deps;

  /**
   * Manual jobs take priority: a pass waiting for its continuation (not
   * running a slice) steps aside in the same writer transaction that accepts
   * the job; its timer is parked in `state.suspended` until the job ends. A
   * duplicate manual request still meets the job in the slot and gets 409.
   */
  const takeSlotFromWaitingPass = (accept: (waitingCleanupId: string | null) => { operationId: string }) => {
    const waiting = slot.waiting();
    const between = waiting && queue.running()?.id !== waiting.id ? waiting : null;
    const accepted = accept(between?.id ?? null);
    if (between) {
      const read = readRetentionRecord(store);
      if (read.state !== "malformed" && read.record.runtime.waitingCleanup?.id === between.id) {
        slot.disarm({ forgetWaiting: true });
        state.suspended = between;
      }
    }
    return accepted;
  };

  /** Publishes the record's end of a stepped-aside operation that a cancel ended there. */
  const publishEnded = (operationId: string) => {
    const ended = readRetentionRecord(store);
    if (ended.state !== "malformed" && ended.record.runtime.latestRun?.id === operationId) core.publish(ended.record.runtime.latestRun);
  };

  const cancel = (operationId: string) => {
    const outcome = acceptCancel(ctx(), { operationId });
    const relay = core.relayed();
    if (relay) {
      // The record already ended a queued or stepped-aside operation; the holder drops its job or stops the running one.
      if (outcome.steppedAside) publishEnded(operationId);
      relay.send({ kind: "cancel", operationId });
      return;
    }
    if (outcome.steppedAside) {
      if (state.suspended?.id === operationId) state.suspended = null;
      publishEnded(operationId);
      return;
    }
    if (outcome.kind === "preparation") {
      aborts.get(operationId)?.abort();
      queue.cancel(operationId);
      return;
    }
    if (outcome.queued) {
      queue.cancel(operationId);
      return;
    }
    const isRunningJob = queue.running()?.id === operationId;
    queue.cancel(operationId);
    if (isRunningJob) return; // it stops at its next batch boundary and records itself
    // Waiting for a continuation timer, or queued behind another job: end
    // it now, keeping its committed counts.
    slot.disarm();
    core.endOrphan(operationId, "cancelled", "cancelled");
    schedule.scheduleNextPass();
  };

  return {
    requestAnalysis(age) {
      const relay = core.relayed();
      if (relay) {
        const accepted = acceptAnalysis(ctx(), { age, waitingFromRecord: true });
        relay.send({ kind: "pickup", operationId: accepted.operationId });
        return accepted;
      }
      const accepted = takeSlotFromWaitingPass((waitingCleanupId) => acceptAnalysis(ctx(), { age, waitingCleanupId }));
      jobs.analysis(accepted.operationId, age);
      return accepted;
    },
    requestRun(expectedRevision, options) {
      gate.checkManualRun(options?.outsideWindow === true);
      const relay = core.relayed();
      if (relay) {
        const accepted = acceptCleanup(ctx(), { expectedRevision, priority: "manual", waitingFromRecord: true });
        relay.send({ kind: "pickup", operationId: accepted.operationId, ...(options?.outsideWindow ? { outsideWindow: true } : {}) });
        return accepted;
      }
      const accepted = takeSlotFromWaitingPass((waitingCleanupId) =>
        acceptCleanup(ctx(), { expectedRevision, priority: "manual", waitingCleanupId }),
      );
      if (options?.outsideWindow) gate.override(accepted.operationId);
      slot.disarm();
      jobs.cleanup(accepted.operationId, "manual");
      return accepted;
    },
    cancel,
    policySaved(effects, options) {
      state.initialOutsideWindow = Boolean(options?.outsideWindow) && (effects.startInitialCleanup || effects.startPreparation !== null);
      // Saved on an instance without the lease: the holder stops its job too.
      for (const stop of effects.stopOperations) core.relayed()?.send({ kind: "cancel", operationId: stop });
      for (const stop of effects.stopOperations) {
        const isPreparation = aborts.has(stop);
        aborts.get(stop)?.abort();
        const isRunningJob = queue.running()?.id === stop;
        queue.cancel(stop);
        if (state.suspended?.id === stop) {
          // Stepped aside for a manual job: it ends where it waits.
          state.suspended = null;
          core.endOrphan(stop, "cancelled", "policy_changed");
          continue;
        }
        if (!isRunningJob && !isPreparation) {
          slot.disarm();
          core.endOrphan(stop, "cancelled", "policy_changed");
        }
      }
      if (effects.startPreparation) jobs.preparation(effects.startPreparation);
      if (effects.startInitialCleanup) schedule.startInitialCleanup();
      else schedule.scheduleNextPass();
    },
    receiveCommand(command) {
      if (!state.running || !state.scheduling) return;
      if (command.kind === "pickup") {
        if (command.outsideWindow) gate.override(command.operationId);
        return watch.pickUpQueued();
      }
      const id = command.operationId;
      const action = relayedCancel(readRetentionRecord(store), id);
      if (action === "cancel") return cancel(id);
      // Ended in the record by the accepting instance: forget it here.
      aborts.get(id)?.abort();
      queue.cancel(id);
      if (state.suspended?.id === id) state.suspended = null;
      if (slot.waiting()?.id === id && slot.nextAt() !== null) {
        slot.disarm({ forgetWaiting: true });
        schedule.scheduleNextPass();
      }
    },
  };
}
