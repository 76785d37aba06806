// The one retention worker (TPR-SCH-01..08): a serial queue for analysis,
// preparation and cleanup, the persisted daily schedule, continuations, and
// recovery after a restart. Durable state lives in the retention record; the
// event bus only carries live progress. The job bodies are jobs.ts and
// cleanup-job.ts; a cleanup slice's batches may run on a worker thread
// (cleanup-slice.ts) while the queue, guard and bookkeeping stay here.
import "server-only";
import { isAppError } from "@/server/errors";
import { createVerificationCache } from "@/server/maintenance/backups/verify";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { createSerialQueue } from "@/server/jobs/serial-queue";
import { scheduledStartAt } from "@/server/jobs/schedule";
import { createWindowGate } from "./window-gate";
import { createSlotTimer } from "./slot-timer";
import { acceptAnalysis, acceptCancel, acceptCleanup, type CommandContext } from "../policy/commands";
import { resumeWaitingCleanup, endActiveOperation, operationEvent, recoverInterrupted } from "../policy/operations";
import { betweenSlicesInRecord, markBetweenSlices } from "../policy/between-slices";
import type { RetentionOperation } from "../policy/policy-schema";
import { ageOfFingerprint, knownLocally, relayedCancel } from "./relay-intake";
import { readRetentionRecord } from "../policy/record";
import { createCleanupJob } from "./cleanup-job";
import { errorCode, type JobHost } from "./job-host";
import { createAnalysisJob, createPreparationJob } from "./jobs";
import type { RetentionWorker, RetentionWorkerDeps } from "./worker-types";
export type { RetentionWorker, RetentionWorkerDeps } from "./worker-types";

export function createRetentionWorker(deps: RetentionWorkerDeps): RetentionWorker {
  const { store, clock, timers, log, bus } = deps;
  const cache = deps.verificationCache ?? createVerificationCache();
  const queue = createSerialQueue({
    onError: (job, error) => log.error({ operationId: job.id, kind: job.kind, code: errorCode(error) }, "retention job failed"),
  });
  const aborts = new Map<string, AbortController>();
  let running = false;
  // False in a foreground worker: the daily schedule belongs to the server.
  let scheduling = true;
  let readyAtMs = 0;
  let watchHandle: unknown = null;
  // A pass that stepped aside for a manual job, with its continuation time.
  let suspended: { id: string; at: number } | null = null;
  const ctx = (): CommandContext => ({ store, nowMs: clock.now(), newId: deps.newId });
  const gate = createWindowGate({ window: deps.window ?? null, clock });

  const publish = (operation: RetentionOperation) => bus.publish(operationEvent(operation));
  /** Ends whatever the slot holds for `operationId` without its job. */
  const endOrphan = (operationId: string, state: "failed" | "cancelled", code: string) => {
    const ended = endActiveOperation(store, { operationId, state, code, nowMs: clock.now() });
    if (ended) publish(ended);
  };

  // Set when a saved approval could not start its initial pass because an
  // older operation still held the slot; the pass starts when that one ends.
  let initialCleanupPending = false;
  // The last save confirmed running its initial pass outside the window.
  let initialOutsideWindow = false;
  const afterCleanupJob = (kind: "analysis" | "cleanup") => {
    if (!running) return;
    // A pass that stepped aside for a manual job returns to the free slot
    // (read from the record, so a pass left waiting by a restart returns too).
    const resumed = resumeWaitingCleanup(store, clock.now());
    if (resumed) {
      const at = suspended?.id === resumed ? suspended.at : clock.now();
      suspended = null;
      setContinuation(resumed, Math.max(at, clock.now()));
      return;
    }
    if (initialCleanupPending) {
      initialCleanupPending = false;
      startInitialCleanup();
    } else if (kind === "analysis") {
      scheduleNextPass();
    }
  };

  // The next scheduled pass, or the continuation of a pass between slices.
  const slot = createSlotTimer({ timers, clock, isRunning: () => running });
  const setContinuation = (operationId: string, requestedAt: number) => {
    slot.armContinuation(operationId, gate.startAt(operationId, requestedAt), () => enqueueCleanup(operationId, "scheduled"));
    // Recorded for instances without the lease, whose "compact now" may then take the slot.
    markBetweenSlices(store, { operationId, nowMs: clock.now() });
  };

  const scheduleNextPass = () => {
    if (!running || !scheduling) return;
    const read = readRetentionRecord(store);
    if (read.state === "malformed") return;
    const { policy, runtime } = read.record;
    const armed = policy.enabled && runtime.preparation.state === "ready" && runtime.approvedRevision === policy.revision;
    if (!armed || runtime.activeOperation) return;
    const at = gate.startAt(null, scheduledStartAt({ nextDueAtMs: parseRfc3339(runtime.nextDueAt), readyAtMs, nowMs: clock.now() }));
    slot.arm(at, () => {
      try {
        const current = readRetentionRecord(store);
        if (current.state === "malformed") return;
        const { operationId } = acceptCleanup(ctx(), { expectedRevision: current.record.policy.revision, priority: "scheduled" });
        enqueueCleanup(operationId, "scheduled");
      } catch (error) {
        // Disabled, unapproved or busy: the next save or finished job reschedules.
        log.info({ code: errorCode(error) }, "scheduled compaction pass not started");
      }
    });
  };

  // Another process changed the record (policy, approval, a pass it ran):
  // re-arm the schedule unless this worker is busy or holds a continuation.
  const watchRecord = () => {
    const every = deps.watchRecordMs;
    if (!every || !running || !scheduling) return;
    watchHandle = timers.setTimeout(() => {
      watchHandle = null;
      if (!running) return;
      try {
        if (deps.relay) pickUpQueued({ secondLook: true });
        if (!queue.running() && !slot.waiting() && !suspended && !initialCleanupPending) scheduleNextPass();
      } catch (error) {
        log.warn({ code: errorCode(error) }, "retention record watch failed");
      }
      watchRecord();
    }, every);
  };

  const host: JobHost = {
    deps,
    queue,
    gate,
    cache,
    aborts,
    isRunning: () => running,
    initialCleanupPending: () => initialCleanupPending,
    publish,
    endOrphan,
    setContinuation: (operationId, requestedAt) => setContinuation(operationId, requestedAt),
    scheduleNextPass: () => scheduleNextPass(),
    startInitialCleanup: () => startInitialCleanup(),
    afterCleanupJob: (kind) => afterCleanupJob(kind),
  };
  const enqueueAnalysis = createAnalysisJob(host);
  const enqueueCleanup = createCleanupJob(host);
  const enqueuePreparation = createPreparationJob(host);

  /**
   * Manual jobs take priority: a pass waiting for its continuation (not
   * running a slice) steps aside in the same writer transaction that accepts
   * the job; its timer is parked here until the job ends. A duplicate manual
   * request still meets the job in the slot and gets 409.
   */
  const takeSlotFromWaitingPass = (accept: (waitingCleanupId: string | null) => { operationId: string }) => {
    const waiting = slot.waiting();
    const between = waiting && queue.running()?.id !== waiting.id ? waiting : null;
    const accepted = accept(between?.id ?? null);
    if (between) {
      const read = readRetentionRecord(store);
      if (read.state !== "malformed" && read.record.runtime.waitingCleanup?.id === between.id) {
        slot.disarm({ forgetWaiting: true });
        suspended = between;
      }
    }
    return accepted;
  };

  // The slot holds a queued operation another instance accepted: run it here.
  // The record watch takes one only when it was already queued at its
  // previous look (its notification was lost), never one that a foreground
  // process (the operator CLI) is about to start itself.
  let queuedAtLastLook: string | null = null;
  const pickUpQueued = (options: { secondLook?: boolean } = {}) => {
    if (!running || !scheduling) return;
    const read = readRetentionRecord(store);
    const active = read.state === "malformed" ? null : read.record.runtime.activeOperation;
    if (!active || active.state !== "queued" || knownLocally(queue, active.id)) return;
    const seenBefore = queuedAtLastLook === active.id;
    queuedAtLastLook = active.id;
    if (options.secondLook && !seenBefore) return;
    if (active.kind === "analysis") {
      const age = ageOfFingerprint(active.fingerprint);
      if (!age) return endOrphan(active.id, "failed", "job_failed");
      enqueueAnalysis(active.id, age);
    } else if (active.kind === "cleanup") {
      slot.disarm({ forgetWaiting: true });
      enqueueCleanup(active.id, "manual");
    }
  };
  const relayed = () => (!running && deps.relay?.remote() ? deps.relay : null);

  const startInitialCleanup = () => {
    try {
      const read = readRetentionRecord(store);
      if (read.state === "malformed") return;
      const { operationId } = acceptCleanup(ctx(), { expectedRevision: read.record.policy.revision, priority: "manual" });
      const outsideWindow = initialOutsideWindow;
      initialOutsideWindow = false;
      // Enabled on an instance without the lease: the holder runs the initial pass.
      const relay = relayed();
      if (relay) {
        relay.send({ kind: "pickup", operationId, ...(outsideWindow ? { outsideWindow: true } : {}) });
      } else {
        if (outsideWindow) gate.override(operationId);
        enqueueCleanup(operationId, "manual");
      }
    } catch (error) {
      if (isAppError(error) && error.code === "operation_active") {
        initialCleanupPending = true;
        return;
      }
      log.info({ code: errorCode(error) }, "initial compaction pass not started");
      scheduleNextPass();
    }
  };

  const worker: RetentionWorker = {
    start() {
      if (running) return;
      running = true;
      readyAtMs = clock.now();
      const { resumeCleanup, pendingPreparation } = recoverInterrupted(store, readyAtMs);
      if (pendingPreparation) enqueuePreparation(pendingPreparation);
      if (resumeCleanup) {
        // An ordinary restart resumes the stored cursor after readiness.
        slot.arm(scheduledStartAt({ nextDueAtMs: null, readyAtMs, nowMs: readyAtMs }), () => enqueueCleanup(resumeCleanup, "scheduled"));
      } else {
        scheduleNextPass();
      }
      watchRecord();
      log.info({ resumeCleanup: Boolean(resumeCleanup), pendingPreparation: Boolean(pendingPreparation) }, "retention worker started");
    },
    startForeground() {
      if (running) return;
      running = true;
      scheduling = false;
      readyAtMs = clock.now();
    },
    async stop() {
      if (!running) return;
      running = false;
      slot.disarm();
      if (watchHandle !== null) timers.clearTimeout(watchHandle);
      watchHandle = null;
      for (const abort of aborts.values()) abort.abort();
      await queue.stop();
      log.info("retention worker stopped");
    },
    isRunning: () => running,
    requestAnalysis(age) {
      const relay = relayed();
      if (relay) {
        const accepted = acceptAnalysis(ctx(), { age, waitingFromRecord: true });
        relay.send({ kind: "pickup", operationId: accepted.operationId });
        return accepted;
      }
      const accepted = takeSlotFromWaitingPass((waitingCleanupId) => acceptAnalysis(ctx(), { age, waitingCleanupId }));
      enqueueAnalysis(accepted.operationId, age);
      return accepted;
    },
    requestRun(expectedRevision, options) {
      gate.checkManualRun(options?.outsideWindow === true);
      const relay = relayed();
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
      enqueueCleanup(accepted.operationId, "manual");
      return accepted;
    },
    cancel(operationId) {
      const outcome = acceptCancel(ctx(), { operationId });
      const relay = relayed();
      if (relay) {
        // The record already ended a queued or stepped-aside operation; the holder drops its job or stops the running one.
        if (outcome.steppedAside) {
          const ended = readRetentionRecord(store);
          if (ended.state !== "malformed" && ended.record.runtime.latestRun?.id === operationId) publish(ended.record.runtime.latestRun);
        }
        relay.send({ kind: "cancel", operationId });
        return;
      }
      if (outcome.steppedAside) {
        if (suspended?.id === operationId) suspended = null;
        const ended = readRetentionRecord(store);
        if (ended.state !== "malformed" && ended.record.runtime.latestRun?.id === operationId) publish(ended.record.runtime.latestRun);
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
      endOrphan(operationId, "cancelled", "cancelled");
      scheduleNextPass();
    },
    policySaved(effects, options) {
      initialOutsideWindow = Boolean(options?.outsideWindow) && (effects.startInitialCleanup || effects.startPreparation !== null);
      // Saved on an instance without the lease: the holder stops its job too.
      for (const stop of effects.stopOperations) relayed()?.send({ kind: "cancel", operationId: stop });
      for (const stop of effects.stopOperations) {
        const isPreparation = aborts.has(stop);
        aborts.get(stop)?.abort();
        const isRunningJob = queue.running()?.id === stop;
        queue.cancel(stop);
        if (suspended?.id === stop) {
          // Stepped aside for a manual job: it ends where it waits.
          suspended = null;
          endOrphan(stop, "cancelled", "policy_changed");
          continue;
        }
        if (!isRunningJob && !isPreparation) {
          slot.disarm();
          endOrphan(stop, "cancelled", "policy_changed");
        }
      }
      if (effects.startPreparation) enqueuePreparation(effects.startPreparation);
      if (effects.startInitialCleanup) startInitialCleanup();
      else scheduleNextPass();
    },
    receiveCommand(command) {
      if (!running || !scheduling) return;
      if (command.kind === "pickup") {
        if (command.outsideWindow) gate.override(command.operationId);
        return pickUpQueued();
      }
      const id = command.operationId;
      const action = relayedCancel(readRetentionRecord(store), id);
      if (action === "cancel") return worker.cancel(id);
      // Ended in the record by the accepting instance: forget it here.
      aborts.get(id)?.abort();
      queue.cancel(id);
      if (suspended?.id === id) suspended = null;
      if (slot.waiting()?.id === id && slot.nextAt() !== null) {
        slot.disarm({ forgetWaiting: true });
        scheduleNextPass();
      }
    },
    idle: () => queue.idle(),
    nextTimerAt: () => slot.nextAt(),
    betweenSlices: () => {
      const waiting = slot.waiting();
      if (waiting && !suspended && queue.running()?.id !== waiting.id) return waiting.id;
      return relayed() ? betweenSlicesInRecord(store) : null;
    },
  };
  return worker;
}
