// Composition root: the one object that owns the process's long-lived state.
// Creating a runtime opens the database and builds every service but starts
// no background work; start() starts the compaction worker, stop() stops it
// and closes the database. Everything below receives what it needs from here
// as arguments: no module keeps process state of its own.
import { openPgStores, openSqliteStores, type Stores } from "./stores";
import { openDatabase, type DbHandle } from "./db/client";
import type { PgPool } from "./db/pg/pool";
import { parseDatabaseUrl, postgresDataAnchor, type DatabaseTarget } from "./db/url";
import { openMultiInstance, openPgSaver, openPostgres } from "./runtime-postgres";
import { systemClock, systemTimers, type Clock, type Timers } from "./clock";
import { randomIds, type IdGenerator } from "./ids";
import { createLogger, type Logger } from "./log";
import { LogRing } from "./logs/ring";
import { createEventBus, type EventBus } from "./events/bus";
import { createStreamSlots, type StreamSlots } from "./events/stream-slots";
import { createMaintenanceGuard, type MaintenanceGuard } from "./maintenance/guard";
import { createProcessLock, processLockFileFor } from "./maintenance/process-lock";
import { createQuiescerRegistry, type QuiescerRegistry } from "./maintenance/quiescence";
import { createModeFreeze, type ModeFreeze } from "./checkpoints/mode";
import { createThreadLocks, type ThreadLocks } from "./checkpoints/thread-lock";
import { createCheckpointQueue, type CheckpointQueue } from "./checkpoints/cleanup/operations";
import { createRunHistoryCache, type RunHistoryCache } from "./checkpoints/cleanup/run-history";
import { createRetentionEpochs, type RetentionEpochs } from "./checkpoints/cleanup/epoch";
import type { PgSaverHandle } from "./checkpoints/pg-saver";
import { createSignInServices, type SignInServices } from "./auth/sign-in-services";
import { createRetentionWorker, type RetentionWorker, type RetentionWorkerDeps } from "./compaction/worker/worker";
import { modeFromEnv } from "./checkpoints/mode";
import { createOperatorMetrics, type OperatorMetrics } from "./metrics/operator-metrics";
import { maintenanceWindowFromEnv } from "./jobs/window-config";
import { batchPauseFromEnv } from "./compaction/worker/batch-pause-config";
import { passThreadFromEnv } from "./compaction/thread/thread-config";
import type { MaintenanceWindow } from "./jobs/maintenance-window";

/** Checkpoint state shared by every request of one runtime. */
export type CheckpointServices = {
  /** Channel mode and snapshot frequency, frozen on first use. */
  modeFreeze: ModeFreeze;
  /** The serial queue of checkpoint analysis / cleanup operations. */
  jobs: CheckpointQueue;
  locks: ThreadLocks;
  runHistory: RunHistoryCache;
  epochs: RetentionEpochs;
  /** PostgreSQL: the process's PostgresSaver (its own pool, tables set up at open); null on SQLite. */
  pgSaver: PgSaverHandle | null;
};

export type Runtime = {
  readonly target: DatabaseTarget;
  /**
   * The SQLite connection; null on PostgreSQL and when the database could not
   * be opened (no query may be sent then). A restore closes it and puts a
   * new one here.
   */
  handle: DbHandle | null;
  /** The PostgreSQL connections (null on SQLite, or when the server could not be reached at start). */
  pg: PgPool | null;
  /**
   * The path backups hang off (backups/ beside it): the SQLite file, or
   * DATA_DIR/postgres on PostgreSQL (no file there, only backups/).
   */
  readonly dbFile: string | null;
  /** Every domain store on `handle` (null with it); rebuilt when a restore reopens the database. */
  stores: Stores | null;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly ids: IdGenerator;
  readonly log: Logger;
  /** The bounded buffer the log viewer reads; the logger feeds it. */
  readonly logRing: LogRing;
  readonly bus: EventBus;
  /** Open event streams per session, capped. */
  readonly streamSlots: StreamSlots;
  readonly guard: MaintenanceGuard;
  readonly quiescers: QuiescerRegistry;
  /** The Messages compaction worker bound to `handle` (null when unsupported); rebuilt after a restore. */
  compaction: RetentionWorker | null;
  readonly checkpoints: CheckpointServices;
  /** Trusted proxies, the password-hashing gate and the log key of sign-in. */
  readonly signIn: SignInServices;
  /** The Prometheus registry behind GET /api/v1/metrics (off unless METRICS_TOKEN is set). */
  readonly metrics: OperatorMetrics;
  /** MAINTENANCE_WINDOW: when scheduled cleanup may run (null: any time). */
  readonly maintenanceWindow: MaintenanceWindow | null;
  /** Starts background work (the compaction worker); idempotent. */
  start(): void;
  /** Stops background work and closes the database; idempotent. */
  stop(): Promise<void>;
};

/** A runtime whose database is open: what route handlers and service verbs receive. */
export type OpenRuntime = Runtime & { stores: Stores; compaction: RetentionWorker; dbFile: string };

export type RuntimeOptions = {
  /** Read for DATABASE_URL, LOG_LEVEL and METRICS_TOKEN (default process.env). */
  env?: Record<string, string | undefined>;
  clock?: Clock;
  timers?: Timers;
  ids?: IdGenerator;
  /** Replaces the stdout + ring logger (tests capture lines here). */
  log?: Logger;
  /** Test seams for the compaction worker (pass limits, backup function). */
  worker?: Pick<RetentionWorkerDeps, "pass" | "createBackupFn" | "verificationCache">;
};

/** The runtime narrowed to an open database, or null for an unsupported engine. */
export function openRuntime(rt: Runtime): OpenRuntime | null {
  return rt.dbFile && rt.stores && rt.compaction && (rt.handle || rt.pg) ? (rt as OpenRuntime) : null;
}

/** How soon a server notices a policy or pass changed by another process (the operator CLI). */
const RECORD_WATCH_MS = 60_000;

export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const env = options.env ?? process.env;
  const target = parseDatabaseUrl(env.DATABASE_URL);
  const logRing = new LogRing();
  const log = options.log ?? createLogger({ level: env.LOG_LEVEL, ring: logRing });
  let started = false;
  let stopped = false;
  const timers = options.timers ?? systemTimers;
  const pg = target.engine === "postgres" ? openPostgres(target.url, env, log) : null;
  // PostgreSQL: several instances share the database. Events reach every
  // instance (LISTEN/NOTIFY) and one worker runs at a time (advisory lock).
  const multi = pg
    ? openMultiInstance({ pool: pg, timers, log, instanceId: (options.ids ?? randomIds)(), onCommand: (command) => rt.compaction?.receiveCommand?.(command), started: () => started && !stopped })
    : null;
  const bus = multi?.bus ?? createEventBus();

  const rt: Runtime = {
    target,
    handle: target.engine === "sqlite" ? openDatabase({ file: target.file, log }) : null,
    pg,
    dbFile: target.engine === "sqlite" ? target.file : target.engine === "postgres" ? postgresDataAnchor(env) : null,
    stores: null,
    clock: options.clock ?? systemClock,
    timers,
    ids: options.ids ?? randomIds,
    log,
    logRing,
    bus,
    streamSlots: createStreamSlots(),
    // The server and the operator CLI on the same file share one guard; on PostgreSQL every instance does.
    guard: createMaintenanceGuard({
      processLock: target.engine === "sqlite" ? createProcessLock({ file: processLockFileFor(target.file) }) : multi?.maintenanceLock,
    }),
    quiescers: createQuiescerRegistry(),
    compaction: null,
    checkpoints: {
      modeFreeze: createModeFreeze(),
      jobs: createCheckpointQueue(),
      locks: createThreadLocks(),
      runHistory: createRunHistoryCache(),
      epochs: createRetentionEpochs(),
      // Agent threads on PostgreSQL: the saver's tables are set up now, before the first request.
      pgSaver: pg && target.engine === "postgres" ? openPgSaver(target.url, env, log) : null,
    },
    signIn: createSignInServices({ env, log }),
    maintenanceWindow: maintenanceWindowFromEnv(env, log),
    metrics: createOperatorMetrics({
      token: env.METRICS_TOKEN ? env.METRICS_TOKEN : null,
      bus,
      sources: {
        stores: () => (rt.handle?.sqlite.open || rt.pg ? rt.stores : null),
        checkpointMode: () => rt.checkpoints.modeFreeze.frozen?.mode ?? configuredCheckpointMode(env),
        workerRunning: () => rt.compaction?.isRunning() ?? false,
      },
    }),
    start() {
      if (started || stopped) return;
      started = true;
      if (multi) multi.lease.start(() => rt.compaction?.start());
      else rt.compaction?.start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      rt.metrics.stop();
      await rt.compaction?.stop();
      await rt.checkpoints.jobs.queue.stop();
      if (rt.handle?.sqlite.open) rt.handle.sqlite.close();
      multi?.stop();
      await rt.checkpoints.pgSaver?.close();
      rt.pg?.close();
      rt.pg = null;
    },
  };

  // Cleanup slices on a worker thread (SQLite, system clock, bundle built);
  // a runtime whose clock or timers a test injects keeps them inline.
  const passThread = passThreadFromEnv({ env, engine: target.engine, injectedClock: Boolean(options.clock || options.timers), log }).settings;
  const buildWorker = (dbFile: string, stores: Stores): RetentionWorker =>
    createRetentionWorker({
      ...options.worker,
      pass: { minYieldMs: batchPauseFromEnv(env, rt.log), ...options.worker?.pass },
      store: stores.compaction,
      maintenance: stores.maintenance,
      dbFile,
      clock: rt.clock,
      timers: rt.timers,
      log: rt.log.child({ component: "retention-worker" }),
      newId: rt.ids,
      bus: rt.bus,
      guard: rt.guard,
      // The operator CLI changes the same record from another process.
      watchRecordMs: RECORD_WATCH_MS,
      window: rt.maintenanceWindow,
      relay: multi?.relay,
      passThread,
    });
  if (rt.handle) {
    rt.stores = openSqliteStores(rt.handle);
    rt.compaction = buildWorker(rt.handle.file, rt.stores);
  } else if (rt.pg && rt.dbFile && target.engine === "postgres") {
    rt.stores = openPgStores(rt.pg.main, { url: target.url, env });
    rt.compaction = buildWorker(rt.dbFile, rt.stores);
  }

  // Restore stops the worker, closes and replaces the database file, then
  // resumes: the runtime reopens its connection and binds a fresh worker to
  // it (a stopped worker's queue does not run again).
  rt.quiescers.register("compaction-worker", {
    stop: async () => {
      await rt.compaction?.stop();
    },
    start: () => {
      if (stopped) return;
      if (target.engine === "postgres") {
        // The connections stay open across a pause: only the worker is rebuilt.
        if (rt.stores && rt.dbFile) {
          rt.compaction = buildWorker(rt.dbFile, rt.stores);
          if (started && (multi ? multi.lease.held() : true)) rt.compaction.start();
        }
        return;
      }
      if (target.engine !== "sqlite") return;
      try {
        if (!rt.handle?.sqlite.open) {
          rt.handle = openDatabase({ file: target.file, log: rt.log });
          rt.stores = openSqliteStores(rt.handle);
        }
        rt.compaction = buildWorker(rt.handle.file, rt.stores ?? openSqliteStores(rt.handle));
        if (started) rt.compaction.start();
      } catch (error) {
        rt.log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "reopening the database failed");
      }
    },
  });
  return rt;
}

/** The configured checkpoint mode before the first checkpoint use freezes it; null when misconfigured. */
function configuredCheckpointMode(env: Record<string, string | undefined>): string | null {
  try {
    return modeFromEnv(env).mode;
  } catch {
    return null;
  }
}

/** Closes the runtime's connection (restore, before the file is replaced). */
export function closeDatabase(rt: Runtime): void {
  if (rt.handle?.sqlite.open) rt.handle.sqlite.close();
}

// The process-wide slot lives in its own module (proxy.ts reads it too).
export { installProcessRuntime, processRuntime, uninstallProcessRuntime } from "./runtime-slot";

