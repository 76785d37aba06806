// The worker's command verbs: analysis, "compact now", cancel, a saved
// policy's effects, and a command another instance relayed to this one.
// Each is accepted in the record first; on an instance without the lease
// (PostgreSQL) the accepted command is relayed to the worker that runs.
import "server-only";
import { acceptAnalysis, acceptCancel, acceptCleanup } from "../policy/commands";
import { readCompactionRecord } from "../policy/record";
import type { RelayedCommand } from "./command-relay";
import type { RecordWatch } from "./record-watch";
import { relayedCancel } from "./relay-intake";
import type { Schedule } from "./schedule";
import type { WorkerCore, WorkerJobs } from "./worker-core";
import type { CompactionWorker } from "./worker-types";

export type WorkerCommands = Pick<CompactionWorker, "requestAnalysis" | "requestRun" | "cancel" | "policySaved"> & {
  receiveCommand(command: RelayedCommand): Promise<void>;
};

export function createWorkerCommands(
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
  const takeSlotFromWaitingPass = async (accept: (waitingCleanupId: string | null) => Promise<{ operationId: string }>) => {
    const waiting = slot.waiting();
    const between = waiting && queue.running()?.id !== waiting.id ? waiting : null;
    const accepted = await accept(between?.id ?? null);
    if (between) {
      const read = await readCompactionRecord(store);
      if (read.state !== "malformed" && read.record.runtime.waitingCleanup?.id === between.id) {
        slot.disarm({ forgetWaiting: true });
        state.suspended = between;
      }
    }
    return accepted;
  };

  /** Publishes the record's end of a stepped-aside operation that a cancel ended there. */
  const publishEnded = async (operationId: string) => {
    const ended = await readCompactionRecord(store);
    if (ended.state !== "malformed" && ended.record.runtime.latestRun?.id === operationId) core.publish(ended.record.runtime.latestRun);
  };

  const cancel = async (operationId: string): Promise<void> => {
    const outcome = await acceptCancel(ctx(), { operationId });
    const relay = core.relayed();
    if (relay) {
      // The record already ended a queued or stepped-aside operation; the holder drops its job or stops the running one.
      if (outcome.steppedAside) await publishEnded(operationId);
      relay.send({ kind: "cancel", operationId });
      return;
    }
    if (outcome.steppedAside) {
      if (state.suspended?.id === operationId) state.suspended = null;
      await publishEnded(operationId);
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
    // it now, keeping its committed counts. Ended, it no longer waits between
    // slices (betweenSlices() must not name it while the schedule re-arms).
    slot.disarm({ forgetWaiting: slot.waiting()?.id === operationId });
    await core.endOrphan(operationId, "cancelled", "cancelled");
    await schedule.scheduleNextPass();
  };

  return {
    async requestAnalysis(age) {
      const relay = core.relayed();
      if (relay) {
        const accepted = await acceptAnalysis(ctx(), { age, waitingFromRecord: true });
        state.relayedAnalysis = accepted.operationId;
        relay.send({ kind: "pickup", operationId: accepted.operationId });
        return accepted;
      }
      const accepted = await takeSlotFromWaitingPass((waitingCleanupId) => acceptAnalysis(ctx(), { age, waitingCleanupId }));
      jobs.analysis(accepted.operationId, age);
      return accepted;
    },
    async requestRun(expectedRevision, options) {
      gate.checkManualRun(options?.outsideWindow === true);
      const relay = core.relayed();
      if (relay) {
        const accepted = await acceptCleanup(ctx(), { expectedRevision, priority: "manual", waitingFromRecord: true });
        relay.send({ kind: "pickup", operationId: accepted.operationId, ...(options?.outsideWindow ? { outsideWindow: true } : {}) });
        return accepted;
      }
      const accepted = await takeSlotFromWaitingPass((waitingCleanupId) =>
        acceptCleanup(ctx(), { expectedRevision, priority: "manual", waitingCleanupId }),
      );
      if (options?.outsideWindow) gate.override(accepted.operationId);
      slot.disarm();
      jobs.cleanup(accepted.operationId, "manual");
      return accepted;
    },
    cancel,
    async policySaved(effects, options) {
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
          await core.endOrphan(stop, "cancelled", "policy_changed");
          continue;
        }
        if (!isRunningJob && !isPreparation) {
          slot.disarm();
          await core.endOrphan(stop, "cancelled", "policy_changed");
        }
      }
      if (effects.startPreparation) jobs.preparation(effects.startPreparation);
      if (effects.startInitialCleanup) await schedule.startInitialCleanup();
      else await schedule.scheduleNextPass();
    },
    async receiveCommand(command) {
      if (!state.running || !state.scheduling) return;
      if (command.kind === "pickup") {
        if (command.outsideWindow) gate.override(command.operationId);
        return watch.pickUpQueued();
      }
      const id = command.operationId;
      const action = relayedCancel(await readCompactionRecord(store), id);
      if (action === "cancel") return cancel(id);
      // Ended in the record by the accepting instance: forget it here.
      aborts.get(id)?.abort();
      queue.cancel(id);
      if (state.suspended?.id === id) state.suspended = null;
      if (slot.waiting()?.id === id && slot.nextAt() !== null) {
        slot.disarm({ forgetWaiting: true });
        await schedule.scheduleNextPass();
      }
    },
  };
}
