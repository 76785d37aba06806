// Composition root: the one object that owns the process's long-lived state.
// Creating a runtime opens the database and builds every service but starts
// no background work; start() starts the compaction worker, stop() stops it
// and closes the database. Everything below receives what it needs from here
// as arguments: no module keeps process state of its own.
import { openPgStores, openSqliteStores, type Stores } from "./stores";
import { openSqliteDb, type SqliteDb } from "./db/sqlite-db";
import type { PgDb } from "./db/pg/pg-db";
import { parseDatabaseUrl, postgresDataAnchor, type DatabaseTarget } from "./db/url";
import { openMultiInstance, openPgSaver, openPostgres, type OpenedPostgres } from "./runtime-postgres";
import { systemClock, systemTimers, type Clock, type Timers } from "./clock";
import { randomIds, type IdGenerator } from "./ids";
import { createLogger, type Logger } from "./log";
import { LogRing } from "./logs/ring";
import { createEventBus, type EventBus } from "./events/bus";
import { createStreamRegistry, type StreamRegistry } from "./events/stream-registry";
import { createMaintenanceGuard, type MaintenanceGuard } from "./maintenance/guard";
import { createProcessLock, processLockFileFor } from "./maintenance/process-lock";
import { createQuiescerRegistry, type QuiescerRegistry } from "./maintenance/quiescence";
import { createModeFreeze, type ModeFreeze } from "./checkpoints/mode";
import { createThreadLocks, type ThreadLocks } from "./checkpoints/thread-lock";
import { createPgThreadLocks } from "./checkpoints/pg-thread-locks";
import { createCheckpointQueue, type CheckpointQueue } from "./checkpoints/cleanup/operations";
import { createRunHistoryCache, type RunHistoryCache } from "./checkpoints/cleanup/run-history";
import { handleTtlDaysFromEnv } from "./checkpoints/handles";
import type { PgSaverHandle } from "./checkpoints/pg-saver";
import { createAccessorSlot, type AccessorSlot } from "./checkpoints/accessor-slot";
import { createSignInServices, type SignInServices } from "./auth/sign-in-services";
import { createRefusalAudit, type RefusalAudit } from "./audit/refusals";
import { createFloodLog, type FloodLog } from "./logs/rate-limit";
import { createReadThreads, type ReadThreads } from "./workspace/read-thread/pool";
import { readThreadBundleFromDisk } from "./workspace/read-thread/bundle";
import type { ReadSource } from "./workspace/read-thread/protocol";
import { liveAt, sessionPolicyFromEnv, type SessionPolicy } from "./auth/session-policy";
import { createCompactionWorker, type CompactionWorker, type CompactionWorkerDeps } from "./compaction/worker/worker";
import { modeFromEnv } from "./checkpoints/mode";
import { createOperatorMetrics, type OperatorMetrics } from "./metrics/operator-metrics";
import { maintenanceWindowFromEnv } from "./jobs/window-config";
import { batchPauseFromEnv } from "./compaction/worker/batch-pause-config";
import { passThreadFromEnv } from "./compaction/thread/thread-config";
import type { MaintenanceWindow } from "./jobs/maintenance-window";
import { createStorageHistory, type StorageHistory } from "./maintenance/history/sampler";
import { createPayloadRestoreJobs, type PayloadRestoreJobs, type RestoreBatchLimits } from "./compaction/restore/jobs";
import { createCheckpointScheduler, type CheckpointScheduler, type SchedulerDeps } from "./checkpoints/schedule/scheduler";

/** On PostgreSQL a worker that takes the lease on its first try (a holder that died may have left a pass) resumes after this, not after a minute. */
export const TAKEOVER_READINESS_MS = 10_000;

/** Checkpoint state shared by every request of one runtime. */
export type CheckpointServices = {
  /** Channel mode and snapshot frequency, frozen on first use. */
  modeFreeze: ModeFreeze;
  /** The serial queue of checkpoint analysis / cleanup operations. */
  jobs: CheckpointQueue;
  locks: ThreadLocks;
  runHistory: RunHistoryCache;
  /** CHECKPOINT_HANDLE_TTL_DAYS: how long a run handle stays protected (0: never expires). */
  handleTtlDays: number;
  /** PostgreSQL: the process's PostgresSaver (on the runtime's pool, tables set up at open); null on SQLite. */
  pgSaver: PgSaverHandle | null;
  /** Automatic checkpoint cleanup and thread expiry (started with the compaction worker, under the same lease). */
  schedule: CheckpointScheduler;
  /** The saver and accessor of the open connection, opened by the first thread request (server/checkpoints/service.ts). */
  accessor: AccessorSlot;
};

export type Runtime = {
  readonly target: DatabaseTarget;
  /**
   * The SQLite connection; null on PostgreSQL and when the database could not
   * be opened (no query may be sent then). A restore closes it and puts a
   * new one here.
   */
  handle: SqliteDb | null;
  /** The PostgreSQL pool (node-postgres) behind every store; null on SQLite, or when the server could not be reached at start. */
  postgres: PgDb | null;
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
  /** Open event streams by session and user: capped, and ended when their session ends. */
  readonly streams: StreamRegistry;
  readonly guard: MaintenanceGuard;
  readonly quiescers: QuiescerRegistry;
  /** The Messages compaction worker bound to `handle` (null when unsupported); rebuilt after a restore. */
  compaction: CompactionWorker | null;
  readonly checkpoints: CheckpointServices;
  /** Trusted proxies, allowed hosts, the password-hashing gate and the log key of sign-in. */
  readonly signIn: SignInServices;
  /** Refused sign-ins, counted into one audit entry per account, client and window. */
  readonly refusals: RefusalAudit;
  /** Rate-limited warn lines for what anonymous clients can cause. */
  readonly floodLog: FloodLog;
  /** Shell output and export: read, scanned and encoded on read threads, streamed with backpressure. */
  readonly readThreads: ReadThreads;
  /** Absolute and idle session lifetimes (SESSION_IDLE_MINUTES). */
  readonly sessionPolicy: SessionPolicy;
  /** The Prometheus registry behind GET /api/v1/metrics (off unless METRICS_TOKEN is set). */
  readonly metrics: OperatorMetrics;
  /** MAINTENANCE_WINDOW: when scheduled cleanup may run (null: any time). */
  readonly maintenanceWindow: MaintenanceWindow | null;
  /** Per-task payload restores running in this process, and the backup checks they remember. */
  readonly payloadRestores: PayloadRestoreJobs;
  /**
   * The storage history's sampler: daily once started, and after each
   * maintenance operation once listening (start() listens; the CLI listens
   * without the daily schedule). `recordAfter` is the hook an operation
   * without a bus event calls when it ends (VACUUM, a restore).
   */
  readonly storageHistory: StorageHistory;
  /** Settles once PostgreSQL's event bridge listens for the other instances' events (at once otherwise). */
  readonly listening: Promise<void>;
  /** Starts background work (the compaction worker); idempotent. */
  start(): void;
  /** Stops background work and closes the database; idempotent. */
  stop(): Promise<void>;
};

/** A runtime whose database is open: what route handlers and service verbs receive. */
export type OpenRuntime = Runtime & { stores: Stores; compaction: CompactionWorker; dbFile: string };

export type RuntimeOptions = {
  /** Read for DATABASE_URL, LOG_LEVEL and METRICS_TOKEN (default process.env). */
  env?: Record<string, string | undefined>;
  clock?: Clock;
  timers?: Timers;
  ids?: IdGenerator;
  /** Replaces the stdout + ring logger (tests capture lines here). */
  log?: Logger;
  /** The ring `log` feeds, when the caller made both. */
  logRing?: LogRing;
  /** Test seams for the compaction worker (pass limits, backup function). */
  worker?: Pick<CompactionWorkerDeps, "pass" | "createBackupFn" | "verificationCache">;
  /** The read thread's bundle; null runs shell output and export inline; default: dist/read-thread.cjs when fresh. */
  readThreadBundle?: string | null;
  /** Test seam for per-task restores (smaller batches). */
  payloadRestore?: { batch?: RestoreBatchLimits };
  /**
   * PostgreSQL: the database openPostgres opened and migrated (null: it could
   * not, and the runtime has no database). Required when DATABASE_URL names
   * PostgreSQL; createMigratedRuntime passes it.
   */
  postgres?: OpenedPostgres | null;
  /** Test seams for scheduled checkpoint maintenance (batch limits, backup function). */
  schedule?: Pick<SchedulerDeps, "limits" | "createBackupFn" | "verificationCache">;
};

/** Where the read threads open their own connection: the same database as the runtime's. */
export function readSourceOf(rt: OpenRuntime): ReadSource {
  if (rt.target.engine === "postgres") return { engine: "postgres", url: rt.target.url };
  return { engine: "sqlite", file: rt.dbFile };
}

/** The runtime narrowed to an open database, or null for an unsupported engine. */
export function openRuntime(rt: Runtime): OpenRuntime | null {
  return rt.dbFile && rt.stores && rt.compaction && (rt.handle || rt.postgres) ? (rt as OpenRuntime) : null;
}

/** How soon a server notices a policy or pass changed by another process (the operator CLI). */
const RECORD_WATCH_MS = 60_000;

/**
 * The runtime of DATABASE_URL with its database migrated first: on
 * PostgreSQL the pool is opened and pending migrations applied (awaited)
 * before the runtime exists, so nothing is served on an old schema. What the
 * server, the CLI and scripts start with; SQLite migrates at open already.
 */
export async function createMigratedRuntime(options: Omit<RuntimeOptions, "postgres"> = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const target = parseDatabaseUrl(env.DATABASE_URL);
  if (target.engine !== "postgres") return createRuntime(options);
  // The logger the runtime will own (with its ring), so the open's lines reach the log viewer too.
  const logRing = options.log ? options.logRing : new LogRing();
  const log = options.log ?? createLogger({ level: env.LOG_LEVEL, ring: logRing });
  const rt = createRuntime({ ...options, log, logRing, postgres: await openPostgres(target.url, env, log) });
  // Events of other instances reach this one from here on.
  await rt.listening;
  return rt;
}

export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const env = options.env ?? process.env;
  const target = parseDatabaseUrl(env.DATABASE_URL);
  const logRing = options.logRing ?? new LogRing();
  const log = options.log ?? createLogger({ level: env.LOG_LEVEL, ring: logRing });
  let started = false;
  let stopped = false;
  const timers = options.timers ?? systemTimers;
  if (target.engine === "postgres" && options.postgres === undefined) {
    throw new Error("a PostgreSQL runtime is created from a migrated database: use createMigratedRuntime");
  }
  const postgres = target.engine === "postgres" ? (options.postgres?.db ?? null) : null;
  // PostgreSQL: several instances share the database. Events reach every
  // instance (LISTEN/NOTIFY) and one worker runs at a time (advisory lock).
  const multi = postgres
    ? openMultiInstance({ db: postgres, timers, log, instanceId: (options.ids ?? randomIds)(), onCommand: (command) => void rt.compaction?.receiveCommand?.(command).catch((error: unknown) => log.warn({ err: { name: (error as Error)?.name } }, "relayed command failed")), started: () => started && !stopped })
    : null;
  const bus = multi?.bus ?? createEventBus();
  // The server and the operator CLI on the same file share one guard; on PostgreSQL every instance does.
  const guard = createMaintenanceGuard({
    processLock: target.engine === "sqlite" ? createProcessLock({ file: processLockFileFor(target.file) }) : multi?.maintenanceLock,
  });

  const rt: Runtime = {
    target,
    handle: target.engine === "sqlite" ? openSqliteDb({ file: target.file, log }) : null,
    postgres,
    dbFile: target.engine === "sqlite" ? target.file : target.engine === "postgres" ? postgresDataAnchor(env) : null,
    stores: null,
    clock: options.clock ?? systemClock,
    timers,
    ids: options.ids ?? randomIds,
    log,
    logRing,
    bus,
    streams: createStreamRegistry({
      timers,
      log,
      // The stores of the moment (a restore reopens them); no answer while the database is closed.
      check: async (sessionIds) => {
        if (!rt.stores || !(rt.handle?.sqlite.open || rt.postgres)) return null;
        const live = await rt.stores.auth.liveSessionsAmong({ ids: sessionIds, ...liveAt(rt.sessionPolicy, rt.clock.now()) });
        return new Map(live.map((session) => [session.id, session.role]));
      },
    }),
    guard,
    quiescers: createQuiescerRegistry(),
    compaction: null,
    checkpoints: {
      modeFreeze: createModeFreeze(),
      jobs: createCheckpointQueue(),
      // PostgreSQL: a thread's lock is taken in the database too, so instances sharing it exclude each other.
      locks: createThreadLocks(postgres ? createPgThreadLocks({ db: postgres, log: log.child({ component: "thread-locks" }) }) : null),
      runHistory: createRunHistoryCache(),
      handleTtlDays: handleTtlDays(env, log),
      // Agent threads on PostgreSQL: the saver's tables are set up now, before the first request.
      pgSaver: postgres ? openPgSaver(postgres, log) : null,
      // Replaced just below, once the runtime it reads its database from exists.
      schedule: null as unknown as CheckpointScheduler,
      accessor: createAccessorSlot(),
    },
    signIn: createSignInServices({ env, log }),
    refusals: createRefusalAudit({
      store: () => (rt.handle?.sqlite.open || rt.postgres ? (rt.stores?.audit ?? null) : null),
      clock: options.clock ?? systemClock,
      timers,
      log,
    }),
    floodLog: createFloodLog({ log: () => rt.log, clock: options.clock ?? systemClock, timers }),
    readThreads: createReadThreads({
      bundlePath: options.readThreadBundle === undefined ? readThreadBundleFromDisk({ log }) : options.readThreadBundle,
      log,
    }),
    sessionPolicy: sessionPolicyFromEnv(env, log),
    maintenanceWindow: maintenanceWindowFromEnv(env, log),
    payloadRestores: createPayloadRestoreJobs(options.payloadRestore),
    storageHistory: createStorageHistory({
      // The stores of the moment (a restore reopens them); none while the database is closed.
      stores: () => (rt.stores && (rt.handle?.sqlite.open || rt.postgres) ? rt.stores : null),
      engine: target.engine === "postgres" ? "postgres" : "sqlite",
      dbFile: target.engine === "sqlite" ? target.file : null,
      clock: options.clock ?? systemClock,
      timers,
      log: log.child({ component: "storage-history" }),
      bus,
      guard,
    }),
    metrics: createOperatorMetrics({
      token: env.METRICS_TOKEN ? env.METRICS_TOKEN : null,
      bus,
      clock: options.clock ?? systemClock,
      sources: {
        stores: () => (rt.handle?.sqlite.open || rt.postgres ? rt.stores : null),
        checkpointMode: () => rt.checkpoints.modeFreeze.frozen?.mode ?? configuredCheckpointMode(env),
        workerRunning: () => rt.compaction?.isRunning() ?? false,
      },
    }),
    listening: multi?.listening ?? Promise.resolve(),
    start() {
      if (started || stopped) return;
      started = true;
      // One lease across instances: the compaction worker and the checkpoint schedule run where it is held.
      const startWorkers = (options: { readinessMs?: number } = {}) => {
        void rt.compaction?.start(options);
        rt.checkpoints.schedule.start();
      };
      if (multi) {
        // A lost lease stops both (another instance may start its own now); a stopped worker does not run again,
        // so a fresh one waits for the next acquisition.
        let stopping: Promise<void> = Promise.resolve();
        multi.lease.start({
          // A holder may have died mid-pass: resume within TAKEOVER_READINESS_MS, at once when another instance held the lease before.
          acquired: ({ takeover }) => void stopping.then(() => !stopped && multi.lease.held() && startWorkers({ readinessMs: takeover ? 0 : TAKEOVER_READINESS_MS })),
          lost: () => {
            stopping = (async () => {
              await rt.checkpoints.schedule.stop();
              await rt.compaction?.stop();
              if (!stopped && rt.stores && rt.dbFile) rt.compaction = buildWorker(rt.dbFile, rt.stores);
            })().catch((error: unknown) => rt.log.error({ err: { name: (error as Error)?.name } }, "stopping the workers after a lost lease failed"));
          },
        });
      } else startWorkers();
      // Every instance samples the storage history; the key of each sample keeps one row per day and operation.
      rt.storageHistory.listen();
      rt.storageHistory.start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      rt.streams.stop();
      rt.metrics.stop();
      await rt.checkpoints.schedule.stop();
      await rt.refusals.stop();
      rt.floodLog.stop();
      await rt.readThreads.stop();
      await rt.compaction?.stop();
      await rt.payloadRestores.stopAll();
      await rt.checkpoints.jobs.queue.stop();
      await rt.storageHistory.stop();
      await rt.handle?.close();
      await multi?.stop();
      await rt.checkpoints.locks.shared?.close();
      await rt.postgres?.close();
      rt.postgres = null;
    },
  };

  rt.checkpoints.schedule = createCheckpointScheduler({
    ...options.schedule,
    // The open database of the moment (a restore reopens the stores).
    context: () => (rt.stores && rt.dbFile && (rt.handle?.sqlite.open || rt.postgres) ? { stores: rt.stores, dbFile: rt.dbFile } : null),
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
    watchMs: RECORD_WATCH_MS,
  });

  // Cleanup slices on a worker thread (SQLite, system clock, bundle built);
  // a runtime whose clock or timers a test injects keeps them inline.
  const passThread = passThreadFromEnv({ env, engine: target.engine, injectedClock: Boolean(options.clock || options.timers), log }).settings;
  const passThreadFallback = { unavailable: false };
  const buildWorker = (dbFile: string, stores: Stores): CompactionWorker =>
    createCompactionWorker({
      ...options.worker,
      pass: { minYieldMs: batchPauseFromEnv(env, rt.log), ...options.worker?.pass },
      store: stores.compaction,
      maintenance: stores.maintenance,
      dbFile,
      clock: rt.clock,
      timers: rt.timers,
      log: rt.log.child({ component: "compaction-worker" }),
      newId: rt.ids,
      bus: rt.bus,
      guard: rt.guard,
      // The operator CLI changes the same record from another process.
      watchRecordMs: RECORD_WATCH_MS,
      window: rt.maintenanceWindow,
      relay: multi?.relay,
      passThread,
      passThreadFallback,
    });
  if (rt.handle) {
    rt.stores = openSqliteStores(rt.handle);
    rt.compaction = buildWorker(rt.handle.file, rt.stores);
  } else if (rt.postgres && rt.dbFile && target.engine === "postgres") {
    rt.stores = openPgStores(rt.postgres, { url: target.url, env });
    rt.compaction = buildWorker(rt.dbFile, rt.stores);
  }

  // A restore ends every open event stream first: each was admitted by the
  // old database's sessions, and its client reconnects (and signs in again
  // if its session did not survive the restore).
  rt.quiescers.register("event-streams", {
    stop: async () => {
      rt.streams.endAll("restored");
    },
    start: () => {},
  });

  // A restore replaces the records the schedule reads: its timers stop with
  // the other workers and are armed again from the restored records.
  rt.quiescers.register("checkpoint-schedule", {
    stop: () => rt.checkpoints.schedule.stop(),
    start: () => {
      if (stopped || !started || (multi && !multi.lease.held())) return;
      rt.checkpoints.schedule.start();
    },
  });

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
          if (started && (multi ? multi.lease.held() : true)) void rt.compaction.start();
        }
        return;
      }
      if (target.engine !== "sqlite") return;
      try {
        if (!rt.handle?.sqlite.open) {
          rt.handle = openSqliteDb({ file: target.file, log: rt.log });
          rt.stores = openSqliteStores(rt.handle);
        }
        rt.compaction = buildWorker(rt.handle.file, rt.stores ?? openSqliteStores(rt.handle));
        if (started) void rt.compaction.start();
      } catch (error) {
        rt.log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "reopening the database failed");
      }
    },
  });
  return rt;
}

/** CHECKPOINT_HANDLE_TTL_DAYS, or the default with a log line when the value is not a whole number of days. */
function handleTtlDays(env: Record<string, string | undefined>, log: Logger): number {
  const { days, invalid } = handleTtlDaysFromEnv(env);
  if (invalid) log.warn({ variable: "CHECKPOINT_HANDLE_TTL_DAYS", days }, "invalid checkpoint handle time to live; using the default");
  return days;
}

/** The configured checkpoint mode before the first checkpoint use freezes it; null when misconfigured. */
function configuredCheckpointMode(env: Record<string, string | undefined>): string | null {
  try {
    return modeFromEnv(env).mode;
  } catch {
    return null;
  }
}

/** Closes the runtime's connections (restore, before the file is replaced). */
export function closeDatabase(rt: Runtime): void {
  rt.handle?.closeNow();
}

// The process-wide slot lives in its own module (proxy.ts reads it too).
export { installProcessRuntime, processRuntime, uninstallProcessRuntime } from "./runtime-slot";

