// What the parts of scheduled checkpoint maintenance share: their
// dependencies, one window gate, a timer per kind (the daily cleanup, thread
// expiry), the verification cache of the expiry backup, and the few flags of
// the scheduler. The jobs run on the runtime's checkpoint queue, so a
// scheduled cleanup, a thread expiry pass, an analysis and a manual Clean up
// run one at a time; each batch also takes the maintenance guard, so none of
// them overlaps a backup, a restore, VACUUM or a compaction batch.
import "server-only";
import type { AuditStore } from "@/server/audit/store";
import type { Clock, Timers } from "@/server/clock";
import type { EventBus } from "@/server/events/bus";
import type { IdGenerator } from "@/server/ids";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "@/server/maintenance/guard";
import type { MaintenanceStore } from "@/server/maintenance/store";
import { createVerificationCache, type VerificationCache } from "@/server/maintenance/backups/verify";
import type { createBackup } from "@/server/maintenance/backups/create";
import type { MaintenanceWindow } from "@/server/jobs/maintenance-window";
import { createSlotTimer, type SlotTimer } from "@/server/jobs/slot-timer";
import { createWindowGate, type WindowGate } from "@/server/jobs/window-gate";
import type { CheckpointStore } from "../store";
import type { ThreadLocks } from "../thread-lock";
import type { RunHistoryCache } from "../cleanup/run-history";
import type { CheckpointQueue, OperationDeps } from "../cleanup/operations";
import type { ExpiryLimits } from "./expiry-pass";
import type { CheckpointScheduleStore } from "./store";

/** The open database as the jobs need it; read on every use (a restore reopens the stores). */
export type ScheduleContext = {
  stores: { schedule: CheckpointScheduleStore; checkpoints: CheckpointStore; maintenance: MaintenanceStore; audit: AuditStore };
  dbFile: string;
};

export type SchedulerDeps = {
  context: () => ScheduleContext | null;
  clock: Clock;
  timers: Timers;
  log: Logger;
  bus: EventBus;
  guard: MaintenanceGuard;
  newId: IdGenerator;
  window: MaintenanceWindow | null;
  jobs: CheckpointQueue;
  locks: ThreadLocks;
  runHistory: RunHistoryCache;
  handleTtlDays: number;
  /** How often a started scheduler re-reads the records for changes another process made (absent: never; tests drive it). */
  watchMs?: number;
  /** Test seams. */
  limits?: Partial<ExpiryLimits>;
  createBackupFn?: typeof createBackup;
  verificationCache?: VerificationCache;
};

export type SchedulerState = {
  running: boolean;
  /** False in a foreground scheduler (the operator CLI): the daily timers belong to the server. */
  scheduling: boolean;
  readyAtMs: number;
  /** The next expiry pass may run outside the window (the save that armed it confirmed so). */
  nextPassOutsideWindow: boolean;
};

export type SchedulerCore = {
  deps: SchedulerDeps;
  gate: WindowGate;
  slots: { cleanup: SlotTimer; expiry: SlotTimer };
  cache: VerificationCache;
  /** Preparations in flight, aborted by cancel and stop. */
  aborts: Map<string, AbortController>;
  state: SchedulerState;
  /** The open database, or null while it is closed (a restore) or unsupported. */
  context(): ScheduleContext | null;
  /**
   * Runs arming steps one at a time: each reads the record and sets a timer,
   * so two of them (a finished job's and the record watch's) never set
   * timers from views of the record in the wrong order.
   */
  serially(fn: () => Promise<void>): Promise<void>;
  /** Dependencies of the retention engine's operations (operations.ts) on the open database. */
  operationDeps(context: ScheduleContext): OperationDeps;
  wait(ms: number): Promise<void>;
};

export function createSchedulerCore(deps: SchedulerDeps): SchedulerCore {
  const state: SchedulerState = { running: false, scheduling: true, readyAtMs: 0, nextPassOutsideWindow: false };
  const wait = (ms: number) => new Promise<void>((resolve) => deps.timers.setTimeout(resolve, ms));
  let tail: Promise<void> = Promise.resolve();
  return {
    serially(fn) {
      const next = tail.then(fn, fn);
      tail = next.catch(() => undefined);
      return next;
    },
    deps,
    gate: createWindowGate({ window: deps.window, clock: deps.clock }),
    slots: {
      cleanup: createSlotTimer({ timers: deps.timers, clock: deps.clock, isRunning: () => state.running }),
      expiry: createSlotTimer({ timers: deps.timers, clock: deps.clock, isRunning: () => state.running }),
    },
    cache: deps.verificationCache ?? createVerificationCache(),
    aborts: new Map(),
    state,
    context: deps.context,
    operationDeps: (context) => ({
      store: context.stores.checkpoints,
      clock: deps.clock,
      log: deps.log,
      guard: deps.guard,
      bus: deps.bus,
      locks: deps.locks,
      cache: deps.runHistory,
      handleTtlDays: deps.handleTtlDays,
      jobs: deps.jobs,
      wait,
      newId: deps.newId,
    }),
    wait,
  };
}
