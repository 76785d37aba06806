// The worker's schedule (TPR-SCH-01..08): recovery after a restart, the
// persisted daily pass, a pass's continuation between slices, the initial
// pass a saved approval asks for, and what follows each finished job.
import "server-only";
import { isAppError } from "@/server/errors";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { scheduledStartAt } from "@/server/jobs/schedule";
import { acceptCleanup } from "../policy/commands";
import { markBetweenSlices } from "../policy/between-slices";
import { recoverInterrupted, resumeWaitingCleanup } from "../policy/operations";
import { readCompactionRecord } from "../policy/record";
import { errorCode } from "./job-host";
import type { WorkerCore, WorkerJobs } from "./worker-core";

export type Schedule = {
  /** Recovers an interrupted operation (on start) and arms what follows; says what it found. */
  recover(): Promise<{ resumeCleanup: boolean; pendingPreparation: boolean; keptAnalysis: boolean }>;
  /** Arms the next daily pass when the policy is enabled, approved and ready, and the slot is free. */
  scheduleNextPass(): Promise<void>;
  /** Arms the continuation of a pass, which then waits between slices. */
  setContinuation(operationId: string, requestedAt: number): Promise<void>;
  /** Starts the pass a saved approval asks for, or leaves it pending while the slot is held. */
  startInitialCleanup(): Promise<void>;
  /** What follows an analysis or cleanup job: a stepped-aside pass returns, or the schedule is armed. */
  afterCleanupJob(kind: "analysis" | "cleanup"): Promise<void>;
};

export function createSchedule(core: WorkerCore, jobs: WorkerJobs): Schedule {
  const { deps, gate, slot, state } = core;
  const { store, clock, log } = deps;

  const setContinuation = async (operationId: string, requestedAt: number) => {
    slot.armContinuation(operationId, gate.startAt(operationId, requestedAt), () => jobs.cleanup(operationId, "scheduled"));
    // Recorded for instances without the lease, whose "compact now" may then take the slot.
    await markBetweenSlices(store, { operationId, nowMs: clock.now() });
  };

  const scheduleNextPass = async () => {
    if (!state.running || !state.scheduling) return;
    const read = await readCompactionRecord(store);
    if (read.state === "malformed") return;
    const { policy, runtime } = read.record;
    const armed = policy.enabled && runtime.preparation.state === "ready" && runtime.approvedRevision === policy.revision;
    if (!armed || runtime.activeOperation) return;
    const nextDueAtMs = parseRfc3339(runtime.nextDueAt);
    const at = gate.startAt(null, scheduledStartAt({ nextDueAtMs, readyAtMs: state.readyAtMs, nowMs: clock.now() }));
    slot.arm(at, () => core.track(async () => {
      try {
        const current = await readCompactionRecord(store);
        if (current.state === "malformed") return;
        const { operationId } = await acceptCleanup(core.ctx(), { expectedRevision: current.record.policy.revision, priority: "scheduled" });
        jobs.cleanup(operationId, "scheduled");
      } catch (error) {
        // Disabled, unapproved or busy: the next save or finished job reschedules.
        log.info({ code: errorCode(error) }, "scheduled compaction pass not started");
      }
    }));
  };

  const startInitialCleanup = async () => {
    try {
      const read = await readCompactionRecord(store);
      if (read.state === "malformed") return;
      const { operationId } = await acceptCleanup(core.ctx(), { expectedRevision: read.record.policy.revision, priority: "manual" });
      const outsideWindow = state.initialOutsideWindow;
      state.initialOutsideWindow = false;
      // Enabled on an instance without the lease: the holder runs the initial pass.
      const relay = core.relayed();
      if (relay) {
        relay.send({ kind: "pickup", operationId, ...(outsideWindow ? { outsideWindow: true } : {}) });
      } else {
        if (outsideWindow) gate.override(operationId);
        jobs.cleanup(operationId, "manual");
      }
    } catch (error) {
      if (isAppError(error) && error.code === "operation_active") {
        state.initialCleanupPending = true;
        return;
      }
      log.info({ code: errorCode(error) }, "initial compaction pass not started");
      await scheduleNextPass();
    }
  };

  return {
    async recover() {
      const { readyAtMs } = state;
      const ownQueued = state.relayedAnalysis;
      state.relayedAnalysis = null;
      const { resumeCleanup, pendingPreparation, keptAnalysis } = await recoverInterrupted(store, clock.now(), { ownQueued });
      if (pendingPreparation) jobs.preparation(pendingPreparation);
      if (resumeCleanup) {
        // An ordinary restart resumes the stored cursor after readiness.
        slot.arm(scheduledStartAt({ nextDueAtMs: null, readyAtMs, nowMs: readyAtMs }), () => jobs.cleanup(resumeCleanup, "scheduled"));
      } else {
        await scheduleNextPass();
      }
      return { resumeCleanup: Boolean(resumeCleanup), pendingPreparation: Boolean(pendingPreparation), keptAnalysis };
    },
    scheduleNextPass,
    setContinuation,
    startInitialCleanup,
    async afterCleanupJob(kind) {
      if (!state.running) return;
      // A pass that stepped aside for a manual job returns to the free slot
      // (read from the record, so a pass left waiting by a restart returns too).
      const resumed = await resumeWaitingCleanup(store, clock.now());
      if (resumed) {
        const at = state.suspended?.id === resumed ? state.suspended.at : clock.now();
        state.suspended = null;
        await setContinuation(resumed, Math.max(at, clock.now()));
        return;
      }
      if (state.initialCleanupPending) {
        state.initialCleanupPending = false;
        await startInitialCleanup();
      } else if (kind === "analysis") {
        await scheduleNextPass();
      }
    },
  };
}
