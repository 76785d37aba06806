// Composition root: the one object that owns the process's long-lived state
// (its shape: runtime-types.ts). Creating a runtime opens the database and
// builds every service but starts no background work; start() starts the
// workers, stop() stops them and closes the database. Everything below
// receives what it needs from here as arguments: no module keeps a runtime's
// state of its own. The pieces: the database and its stores
// (runtime-database.ts), the checkpoint services (runtime-checkpoints.ts),
// the compaction worker's builder (runtime-worker.ts), where the workers run
// (runtime-lease.ts), what a restore stops and starts (runtime-restore.ts)
// and PostgreSQL's instance coordination (runtime-postgres.ts).
import { parseDatabaseUrl } from "./db/url";
import { openMultiInstance, openPostgres } from "./runtime-postgres";
import { systemClock, systemTimers } from "./clock";
import { randomIds } from "./ids";
import { createLogger } from "./log";
import { LogRing } from "./logs/ring";
import { createEventBus } from "./events/bus";
import { createStreamRegistry } from "./events/stream-registry";
import { createMaintenanceGuard } from "./maintenance/guard";
import { createProcessLock, processLockFileFor } from "./maintenance/process-lock";
import { createQuiescerRegistry } from "./maintenance/quiescence";
import type { CheckpointScheduler } from "./checkpoints/schedule/scheduler";
import { createSignInServices } from "./auth/sign-in-services";
import { createRefusalAudit } from "./audit/refusals";
import { createFloodLog } from "./logs/rate-limit";
import { createReadThreads } from "./workspace/read-thread/pool";
import { readThreadBundleFromDisk } from "./workspace/read-thread/bundle";
import type { ReadSource } from "./workspace/read-thread/protocol";
import { liveAt, sessionPolicyFromEnv } from "./auth/session-policy";
import { createOperatorMetrics } from "./metrics/operator-metrics";
import { maintenanceWindowFromEnv } from "./jobs/window-config";
import { createStorageHistory } from "./maintenance/history/sampler";
import { createPayloadRestoreJobs } from "./compaction/restore/jobs";
import { newPassThreadState } from "./compaction/worker/worker-types";
import { liveStores, openRuntimeDatabase, storesOn } from "./runtime-database";
import { configuredCheckpointMode, createCheckpointServices, createRuntimeCheckpointSchedule } from "./runtime-checkpoints";
import { createWorkerBuilder } from "./runtime-worker";
import { startWorkers } from "./runtime-lease";
import { registerRestoreQuiescers } from "./runtime-restore";
import type { OpenRuntime, Runtime, RuntimeLifecycle, RuntimeOptions } from "./runtime-types";

export type { CheckpointServices, OpenRuntime, Runtime, RuntimeOptions } from "./runtime-types";
export { TAKEOVER_READINESS_MS } from "./runtime-lease";

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
  const lifecycle: RuntimeLifecycle = { started: false, stopped: false };
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  if (target.engine === "postgres" && options.postgres === undefined) {
    throw new Error("a PostgreSQL runtime is created from a migrated database: use createMigratedRuntime");
  }
  const database = openRuntimeDatabase(target, env, log, options.postgres);
  const { postgres } = database;
  // PostgreSQL: several instances share the database. Events reach every
  // instance (LISTEN/NOTIFY) and one worker runs at a time (advisory lock).
  const multi = postgres
    ? openMultiInstance({ db: postgres, timers, log, instanceId: (options.ids ?? randomIds)(), onCommand: (command) => void rt.compaction?.receiveCommand?.(command).catch((error: unknown) => log.warn({ err: { name: (error as Error)?.name } }, "relayed command failed")), started: () => lifecycle.started && !lifecycle.stopped })
    : null;
  const bus = multi?.bus ?? createEventBus();
  // The server and the operator CLI on the same file share one guard; on PostgreSQL every instance does.
  const guard = createMaintenanceGuard({
    processLock: target.engine === "sqlite" ? createProcessLock({ file: processLockFileFor(target.file) }) : multi?.maintenanceLock,
  });

  const rt: Runtime = {
    target,
    ...database,
    stores: null,
    clock,
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
        const stores = liveStores(rt);
        if (!stores) return null;
        const live = await stores.auth.liveSessionsAmong({ ids: sessionIds, ...liveAt(rt.sessionPolicy, rt.clock.now()) });
        return new Map(live.map((session) => [session.id, session.role]));
      },
    }),
    guard,
    quiescers: createQuiescerRegistry(),
    compaction: null,
    passThreads: newPassThreadState(),
    // The schedule is built just below, once the runtime it reads its database from exists.
    checkpoints: { ...createCheckpointServices({ env, log, postgres }), schedule: null as unknown as CheckpointScheduler },
    signIn: createSignInServices({ env, log, timers }),
    refusals: createRefusalAudit({ store: () => liveStores(rt)?.audit ?? null, clock, timers, log }),
    floodLog: createFloodLog({ log: () => rt.log, clock, timers }),
    readThreads: createReadThreads({
      bundlePath: options.readThreadBundle === undefined ? readThreadBundleFromDisk({ log }) : options.readThreadBundle,
      log,
    }),
    sessionPolicy: sessionPolicyFromEnv(env, log),
    maintenanceWindow: maintenanceWindowFromEnv(env, log),
    payloadRestores: createPayloadRestoreJobs(options.payloadRestore),
    storageHistory: createStorageHistory({
      // The stores of the moment (a restore reopens them); none while the database is closed.
      stores: () => liveStores(rt),
      engine: target.engine === "postgres" ? "postgres" : "sqlite",
      dbFile: target.engine === "sqlite" ? target.file : null,
      clock,
      timers,
      log: log.child({ component: "storage-history" }),
      bus,
      guard,
    }),
    metrics: createOperatorMetrics({
      token: env.METRICS_TOKEN ? env.METRICS_TOKEN : null,
      bus,
      clock,
      sources: {
        stores: () => liveStores(rt),
        checkpointMode: () => rt.checkpoints.modeFreeze.frozen?.mode ?? configuredCheckpointMode(env),
        workerRunning: () => rt.compaction?.isRunning() ?? false,
      },
    }),
    listening: multi?.listening ?? Promise.resolve(),
    start() {
      if (lifecycle.started || lifecycle.stopped) return;
      lifecycle.started = true;
      // One lease across instances: the compaction worker and the checkpoint schedule run where it is held.
      startWorkers(rt, { multi, lifecycle, buildWorker });
      // Every instance samples the storage history; the key of each sample keeps one row per day and operation.
      rt.storageHistory.listen();
      rt.storageHistory.start();
    },
    async stop() {
      if (lifecycle.stopped) return;
      lifecycle.stopped = true;
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

  rt.checkpoints.schedule = createRuntimeCheckpointSchedule(rt, { seams: options.schedule, watchMs: RECORD_WATCH_MS });
  const buildWorker = createWorkerBuilder(rt, {
    env,
    seams: options.worker,
    injectedClock: Boolean(options.clock || options.timers),
    relay: multi?.relay,
    watchRecordMs: RECORD_WATCH_MS,
  });
  rt.stores = storesOn(rt, env);
  if (rt.stores && rt.dbFile) rt.compaction = buildWorker(rt.dbFile, rt.stores);
  registerRestoreQuiescers(rt, { multi, lifecycle, buildWorker });
  return rt;
}

/** Closes the runtime's connections (restore, before the file is replaced). */
export function closeDatabase(rt: Runtime): void {
  rt.handle?.closeNow();
}

// The process-wide slot lives in its own module (proxy.ts reads it too).
export { installProcessRuntime, processRuntime, uninstallProcessRuntime } from "./runtime-slot";
