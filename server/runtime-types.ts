// The runtime's shape: the one object that owns a process's long-lived
// state (built by createRuntime in runtime.ts), the options it is built
// from, and the narrowing route handlers receive.
import type { Stores } from "./stores";
import type { SqliteDb } from "./db/sqlite-db";
import type { PgDb } from "./db/pg/pg-db";
import type { DatabaseTarget } from "./db/url";
import type { OpenedPostgres } from "./runtime-postgres";
import type { Clock, Timers } from "./clock";
import type { IdGenerator } from "./ids";
import type { Logger } from "./log";
import type { LogRing } from "./logs/ring";
import type { EventBus } from "./events/bus";
import type { StreamRegistry } from "./events/stream-registry";
import type { MaintenanceGuard } from "./maintenance/guard";
import type { QuiescerRegistry } from "./maintenance/quiescence";
import type { ModeFreeze } from "./checkpoints/mode";
import type { ThreadLocks } from "./checkpoints/thread-lock";
import type { CheckpointQueue } from "./checkpoints/cleanup/operations";
import type { RunHistoryCache } from "./checkpoints/cleanup/run-history";
import type { PgSaverHandle } from "./checkpoints/pg-saver";
import type { AccessorSlot } from "./checkpoints/accessor-slot";
import type { CheckpointScheduler, SchedulerDeps } from "./checkpoints/schedule/scheduler";
import type { SignInServices } from "./auth/sign-in-services";
import type { RefusalAudit } from "./audit/refusals";
import type { FloodLog } from "./logs/rate-limit";
import type { ReadThreads } from "./workspace/read-thread/pool";
import type { SessionPolicy } from "./auth/session-policy";
import type { CompactionWorker, CompactionWorkerDeps } from "./compaction/worker/worker";
import type { PassThreadState } from "./compaction/worker/worker-types";
import type { OperatorMetrics } from "./metrics/operator-metrics";
import type { MaintenanceWindow } from "./jobs/maintenance-window";
import type { StorageHistory } from "./maintenance/history/sampler";
import type { PayloadRestoreJobs, RestoreBatchLimits } from "./compaction/restore/jobs";

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
  /** The compaction worker's pass threads, across the workers the runtime rebuilds: whether one could not start (passes stay inline), the slices that ran on one. */
  readonly passThreads: PassThreadState;
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

/** Where a runtime is in its life: start() and stop() each happen once, in that order. */
export type RuntimeLifecycle = { started: boolean; stopped: boolean };
