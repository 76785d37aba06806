// The compaction worker's dependencies and public surface (the worker itself
// is worker.ts; its job bodies are jobs.ts and cleanup-job.ts).
import type { Clock, Timers } from "@/server/clock";
import type { EventBus } from "@/server/events/bus";
import type { IdGenerator } from "@/server/ids";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "@/server/maintenance/guard";
import type { VerificationCache } from "@/server/maintenance/backups/verify";
import type { createBackup } from "@/server/maintenance/backups/create";
import type { MaintenanceStore } from "@/server/maintenance/store";
import type { MaintenanceWindow } from "@/server/jobs/maintenance-window";
import type { SavePolicyEffects } from "../policy/policy-update";
import type { CompactionAge } from "../policy/policy-schema";
import type { CompactionStore } from "../store";
import type { PassThreadSettings } from "../thread/thread-config";
import type { ThreadSliceCount } from "../thread/run-in-thread";
import type { CommandRelay, RelayedCommand } from "./command-relay";

/**
 * What the runtime keeps about its pass threads across the workers it builds
 * (a restore, a new lease): a thread that could not start stays unavailable,
 * so its passes keep running inline while another runtime in the process
 * still tries its own thread; and the slice threads it started and those
 * not yet exited.
 */
export type PassThreadState = ThreadSliceCount & { unavailable: boolean };

/** A fresh state: no thread tried yet. */
export function newPassThreadState(): PassThreadState {
  return { unavailable: false, started: 0, running: 0 };
}

export type CompactionWorkerDeps = {
  store: CompactionStore;
  maintenance: MaintenanceStore;
  dbFile: string;
  clock: Clock;
  timers: Timers;
  log: Logger;
  newId: IdGenerator;
  bus: EventBus;
  guard: MaintenanceGuard;
  verificationCache?: VerificationCache;
  /** Test seams for the pass limits (defaults are the spec's). */
  pass?: { workBudgetMs?: number; yieldMs?: number; minYieldMs?: number; maxBatchRows?: number };
  createBackupFn?: typeof createBackup;
  /**
   * How often a started worker re-reads the record for changes made by
   * another process (the operator CLI enabling compaction, or finishing a
   * pass): it then arms the daily schedule as if the change were its own.
   * Off when absent (tests drive their timers by hand).
   */
  watchRecordMs?: number;
  /** Cleanup starts and continues only inside it, unless a manual run overrode it (default: none). */
  window?: MaintenanceWindow | null;
  /**
   * PostgreSQL with several instances: while this worker is not started
   * (another instance holds the lease), accepted commands are relayed to the
   * worker that runs (absent: they run here, as on SQLite).
   */
  relay?: CommandRelay;
  /**
   * On the system clock: each cleanup slice's batches run on a worker thread
   * with its own connection or pool (absent: on this thread, as tests with a
   * manual clock need). The runtime picks it (COMPACTION_THREAD).
   */
  passThread?: (PassThreadSettings & { fixedClock?: boolean }) | null;
  /** The runtime's pass thread state (a rebuilt worker keeps to inline once the thread could not start); absent: this worker's own. */
  passThreadState?: PassThreadState;
};

export type CompactionWorker = {
  /**
   * Recovers interrupted work from the record, then arms the schedule and
   * the record watch; resolves when that is done (never rejects: a failure
   * is logged). idle() and stop() wait for it. `readinessMs` (default a
   * minute): how long after this start the first pass, or an interrupted
   * one, may begin. On PostgreSQL the worker starts when its instance takes
   * the lease, and any acquisition may follow a holder that died mid-pass:
   * there it is shorter (runtime-lease.ts), so the pass resumes within seconds.
   */
  start(options?: { readinessMs?: number }): Promise<void>;
  /**
   * Runs the jobs this process asks for and their continuations, without
   * recovering the record or arming the daily schedule: for a process that
   * drives one operation and exits (the operator CLI) beside a live server
   * whose worker owns recovery and the schedule.
   */
  startForeground(): void;
  stop(): Promise<void>;
  isRunning(): boolean;
  requestAnalysis(age: CompactionAge): Promise<{ operationId: string }>;
  /** `outsideWindow`: the administrator confirmed running outside the maintenance window. */
  requestRun(expectedRevision: number, options?: { outsideWindow?: boolean }): Promise<{ operationId: string }>;
  cancel(operationId: string): Promise<void>;
  /**
   * Applies what a saved policy asks for (preparation, initial cleanup, stop).
   * `outsideWindow`: the administrator confirmed that the initial pass runs
   * now even outside the maintenance window (else it waits for the window).
   */
  policySaved(effects: SavePolicyEffects, options?: { outsideWindow?: boolean }): Promise<void>;
  /** Resolves when nothing runs or waits in the queue (tests). */
  idle(): Promise<void>;
  /** When the next timer fires, for status and tests. */
  nextTimerAt(): number | null;
  /**
   * The cleanup pass waiting for its continuation that a manual analysis or
   * "compact now" would take the slot from right now (null otherwise).
   */
  betweenSlices?(): Promise<string | null>;
  /** A command another instance accepted for this (running) worker; ignored while not started. */
  receiveCommand?(command: RelayedCommand): Promise<void>;
};
