// The compaction worker the runtime builds on its stores, again after a
// restore and after a lost lease (a stopped worker never runs again). What
// must outlive each worker is the runtime's: where its cleanup slices run
// (COMPACTION_THREAD, asked once here) and its pass threads' state
// (rt.passThreads: whether the thread failed to start, the slices it ran).
import type { Stores } from "./stores";
import type { CommandRelay } from "./compaction/worker/command-relay";
import { createCompactionWorker, type CompactionWorker } from "./compaction/worker/worker";
import { batchPauseFromEnv } from "./compaction/worker/batch-pause-config";
import { passThreadFromEnv } from "./compaction/thread/thread-config";
import type { Runtime, RuntimeOptions } from "./runtime-types";

export type WorkerBuilder = (dbFile: string, stores: Stores) => CompactionWorker;

export function createWorkerBuilder(
  rt: Runtime,
  options: {
    env: Record<string, string | undefined>;
    seams: RuntimeOptions["worker"];
    /** A test drives the clock or timers by hand: its passes stay inline. */
    injectedClock: boolean;
    relay: CommandRelay | undefined;
    /** How often a started worker re-reads the record another process may have changed. */
    watchRecordMs: number;
  },
): WorkerBuilder {
  const { env, seams } = options;
  // Cleanup slices on a worker thread (system clock, bundle built; on PostgreSQL with a pool of their own).
  const passThread = passThreadFromEnv({ env, engine: rt.target.engine, postgres: rt.postgres?.config, injectedClock: options.injectedClock, log: rt.log }).settings;
  return (dbFile, stores) =>
    createCompactionWorker({
      ...seams,
      pass: { minYieldMs: batchPauseFromEnv(env, rt.log), ...seams?.pass },
      store: stores.compaction,
      maintenance: stores.maintenance,
      dbFile,
      clock: rt.clock,
      timers: rt.timers,
      log: rt.log.child({ component: "compaction-worker" }),
      newId: rt.ids,
      bus: rt.bus,
      guard: rt.guard,
      watchRecordMs: options.watchRecordMs,
      window: rt.maintenanceWindow,
      relay: options.relay,
      passThread,
      passThreadState: rt.passThreads,
    });
}
