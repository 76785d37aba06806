// The one compaction worker (TPR-SCH-01..08): a serial queue for analysis,
// preparation and cleanup, the persisted daily schedule, continuations, and
// recovery after a restart. Durable state lives in the compaction record; the
// event bus only carries live progress. This file wires the parts around one
// shared core (worker-core.ts): the schedule (schedule.ts), the record watch
// and relay pickup (record-watch.ts), the command verbs (commands.ts) and the
// job bodies (jobs.ts, cleanup-job.ts; a cleanup slice's batches may run on a
// worker thread, cleanup-slice.ts).
import "server-only";
import { MINUTE_MS } from "@/server/jobs/schedule";
import { betweenSlicesInRecord } from "../policy/between-slices";
import { createCleanupJob } from "./cleanup-job";
import { createWorkerCommands } from "./commands";
import { errorCode, type JobHost } from "./job-host";
import { createAnalysisJob, createPreparationJob } from "./jobs";
import { createRecordWatch } from "./record-watch";
import { createSchedule } from "./schedule";
import { createWorkerCore, type WorkerJobs } from "./worker-core";
import type { CompactionWorker, CompactionWorkerDeps } from "./worker-types";
export type { CompactionWorker, CompactionWorkerDeps } from "./worker-types";

export function createCompactionWorker(deps: CompactionWorkerDeps): CompactionWorker {
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
  // The recovery a start runs (reading the record is a round trip): idle() and stop() wait for it.
  let starting: Promise<void> = Promise.resolve();

  return {
    start(options = {}) {
      if (state.running) return starting;
      state.running = true;
      // Readiness delays a start's first pass by a minute (scheduledStartAt); a shorter one counts as begun earlier.
      state.readyAtMs = clock.now() - (MINUTE_MS - Math.min(MINUTE_MS, Math.max(0, options.readinessMs ?? MINUTE_MS)));
      starting = (async () => {
        try {
          const recovered = await schedule.recover();
          log.info(recovered, "compaction worker started");
          // This instance's own relayed analysis, still queued: nobody else ran it, so this worker does.
          if (recovered.keptAnalysis) await watch.pickUpQueued();
        } catch (error) {
          // The record watch re-arms the schedule at its next look.
          log.error({ code: errorCode(error) }, "compaction worker recovery failed");
        }
        if (state.running) watch.start();
      })();
      return starting;
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
      await starting;
      slot.disarm();
      watch.stop();
      for (const abort of aborts.values()) abort.abort();
      await queue.stop();
      log.info("compaction worker stopped");
    },
    isRunning: () => state.running,
    ...commands,
    idle: async () => {
      await starting;
      // A timer that fired reads the record before it enqueues: wait for both, until neither is left.
      do {
        await core.settled();
        await queue.idle();
      } while (await core.settled().then(() => queue.running() !== null || queue.pending().length > 0));
    },
    nextTimerAt: () => slot.nextAt(),
    betweenSlices: async () => {
      const waiting = slot.waiting();
      if (waiting && !state.suspended && queue.running()?.id !== waiting.id) return waiting.id;
      return core.relayed() ? betweenSlicesInRecord(store) : null;
    },
  };
}
