// The runtime's checkpoint services: the mode freeze, the queue of analysis
// and cleanup operations, the thread locks (on PostgreSQL also across
// instances), the run-history cache, the run handles' time to live, the
// PostgreSQL saver, the accessor slot, and the scheduler of the daily cleanup
// and thread expiry (built once the runtime it reads its database from exists).
import type { PgDb } from "./db/pg/pg-db";
import type { Logger } from "./log";
import { createModeFreeze, modeFromEnv } from "./checkpoints/mode";
import { createThreadLocks } from "./checkpoints/thread-lock";
import { createPgThreadLocks } from "./checkpoints/pg-thread-locks";
import { createCheckpointQueue } from "./checkpoints/cleanup/operations";
import { createRunHistoryCache } from "./checkpoints/cleanup/run-history";
import { handleTtlDaysFromEnv } from "./checkpoints/handles";
import { createAccessorSlot } from "./checkpoints/accessor-slot";
import { createCheckpointScheduler, type CheckpointScheduler } from "./checkpoints/schedule/scheduler";
import { openPgSaver } from "./runtime-postgres";
import { liveStores } from "./runtime-database";
import type { CheckpointServices, Runtime, RuntimeOptions } from "./runtime-types";

export function createCheckpointServices(options: { env: Record<string, string | undefined>; log: Logger; postgres: PgDb | null }): Omit<CheckpointServices, "schedule"> {
  const { env, log, postgres } = options;
  return {
    modeFreeze: createModeFreeze(),
    jobs: createCheckpointQueue(),
    // PostgreSQL: a thread's lock is taken in the database too, so instances sharing it exclude each other.
    locks: createThreadLocks(postgres ? createPgThreadLocks({ db: postgres, log: log.child({ component: "thread-locks" }) }) : null),
    runHistory: createRunHistoryCache(),
    handleTtlDays: handleTtlDays(env, log),
    // Agent threads on PostgreSQL: the saver's tables are set up now, before the first request.
    pgSaver: postgres ? openPgSaver(postgres, log) : null,
    accessor: createAccessorSlot(),
  };
}

/** The scheduler of the daily checkpoint cleanup and thread expiry, on the runtime's database of the moment. */
export function createRuntimeCheckpointSchedule(rt: Runtime, options: { seams: RuntimeOptions["schedule"]; watchMs: number }): CheckpointScheduler {
  return createCheckpointScheduler({
    ...options.seams,
    // The open database of the moment (a restore reopens the stores).
    context: () => {
      const stores = liveStores(rt);
      return stores && rt.dbFile ? { stores, dbFile: rt.dbFile } : null;
    },
    clock: rt.clock,
    timers: rt.timers,
    log: rt.log.child({ component: "checkpoint-schedule" }),
    bus: rt.bus,
    guard: rt.guard,
    newId: rt.ids,
    window: rt.maintenanceWindow,
    jobs: rt.checkpoints.jobs,
    locks: rt.checkpoints.locks,
    runHistory: rt.checkpoints.runHistory,
    handleTtlDays: rt.checkpoints.handleTtlDays,
    // The operator CLI changes the same records from another process.
    watchMs: options.watchMs,
  });
}

/** CHECKPOINT_HANDLE_TTL_DAYS, or the default with a log line when the value is not a whole number of days. */
function handleTtlDays(env: Record<string, string | undefined>, log: Logger): number {
  const { days, invalid } = handleTtlDaysFromEnv(env);
  if (invalid) log.warn({ variable: "CHECKPOINT_HANDLE_TTL_DAYS", days }, "invalid checkpoint handle time to live; using the default");
  return days;
}

/** The configured checkpoint mode before the first checkpoint use freezes it; null when misconfigured. */
export function configuredCheckpointMode(env: Record<string, string | undefined>): string | null {
  try {
    return modeFromEnv(env).mode;
  } catch {
    return null;
  }
}
