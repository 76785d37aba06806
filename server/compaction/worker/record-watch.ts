// The started worker's look at the shared record: another process changed
// it (policy, approval, a pass it ran), or another instance accepted an
// operation that this worker, holding the slot's lease, should run.
import "server-only";
import { readCompactionRecord } from "../policy/record";
import { errorCode } from "./job-host";
import { ageOfFingerprint, knownLocally } from "./relay-intake";
import type { Schedule } from "./schedule";
import type { WorkerCore, WorkerJobs } from "./worker-core";

export type RecordWatch = {
  /** Looks every `watchRecordMs` (off when absent) until stopped. */
  start(): void;
  stop(): void;
  /**
   * Runs here the queued operation another instance accepted. With
   * `secondLook` (the watch), only one already queued at the previous look.
   */
  pickUpQueued(options?: { secondLook?: boolean }): Promise<void>;
};

export function createRecordWatch(core: WorkerCore, jobs: WorkerJobs, schedule: Pick<Schedule, "scheduleNextPass">): RecordWatch {
  const { deps, queue, slot, state } = core;
  const { store, timers, log } = deps;
  let watchHandle: unknown = null;

  // The watch takes a queued operation only when it was already queued at
  // its previous look (its notification was lost), never one that a
  // foreground process (the operator CLI) is about to start itself.
  const pickUpQueued = async (options: { secondLook?: boolean } = {}): Promise<void> => {
    if (!state.running || !state.scheduling) return;
    const read = await readCompactionRecord(store);
    const active = read.state === "malformed" ? null : read.record.runtime.activeOperation;
    if (!active || active.state !== "queued" || knownLocally(queue, active.id)) return;
    const seenBefore = state.queuedAtLastLook === active.id;
    state.queuedAtLastLook = active.id;
    if (options.secondLook && !seenBefore) return;
    if (active.kind === "analysis") {
      const age = ageOfFingerprint(active.fingerprint);
      if (!age) return core.endOrphan(active.id, "failed", "job_failed");
      jobs.analysis(active.id, age);
    } else if (active.kind === "cleanup") {
      slot.disarm({ forgetWaiting: true });
      jobs.cleanup(active.id, "manual");
    }
  };

  // Re-arms the schedule unless this worker is busy or holds a continuation.
  const watchRecord = () => {
    const every = deps.watchRecordMs;
    if (!every || !state.running || !state.scheduling) return;
    // Tracked: the look reads the record (a round trip), and idle() waits for it.
    watchHandle = timers.setTimeout(
      () =>
        core.track(async () => {
          watchHandle = null;
          if (!state.running) return;
          try {
            if (deps.relay) await pickUpQueued({ secondLook: true });
            if (!queue.running() && !slot.waiting() && !state.suspended && !state.initialCleanupPending) await schedule.scheduleNextPass();
          } catch (error) {
            log.warn({ code: errorCode(error) }, "compaction record watch failed");
          }
          watchRecord();
        }),
      every,
    );
  };

  return {
    start: watchRecord,
    stop() {
      if (watchHandle !== null) timers.clearTimeout(watchHandle);
      watchHandle = null;
    },
    pickUpQueued,
  };
}
