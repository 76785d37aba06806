// What the compaction worker's parts (worker.ts, schedule.ts, record-watch.ts,
// commands.ts) share: its dependencies, queue, window gate and one timer,
// and its few mutable flags in one object, so every part moves them in the
// open rather than through each other's closures.
import "server-only";
import { createVerificationCache, type VerificationCache } from "@/server/maintenance/backups/verify";
import { createSerialQueue, type SerialQueue } from "@/server/jobs/serial-queue";
import type { CommandContext } from "../policy/commands";
import { endActiveOperation, operationEvent } from "../policy/operations";
import type { CompactionAge, CompactionOperation } from "../policy/policy-schema";
import type { CommandRelay } from "./command-relay";
import { errorCode } from "./job-host";
import { createSlotTimer, type SlotTimer, type WaitingPass } from "@/server/jobs/slot-timer";
import { createWindowGate, type WindowGate } from "@/server/jobs/window-gate";
import type { CompactionWorkerDeps } from "./worker-types";

export type WorkerState = {
  running: boolean;
  /** False in a foreground worker: the daily schedule belongs to the server. */
  scheduling: boolean;
  readyAtMs: number;
  /** A pass that stepped aside for a manual job, with its continuation time. */
  suspended: WaitingPass | null;
  /**
   * Set when a saved approval could not start its initial pass because an
   * older operation still held the slot; the pass starts when that one ends.
   */
  initialCleanupPending: boolean;
  /** The last save confirmed running its initial pass outside the window. */
  initialOutsideWindow: boolean;
  /** The queued operation of another instance that the record watch saw at its previous look. */
  queuedAtLastLook: string | null;
  /**
   * The analysis this instance accepted and relayed while its worker was not
   * started (PostgreSQL: the lease's first answer may still be on its way).
   * If this worker starts with it still queued, it runs it: no dead process
   * left it behind.
   */
  relayedAnalysis: string | null;
};

/** Enqueues each kind of job (jobs.ts, cleanup-job.ts). */
export type WorkerJobs = {
  analysis(operationId: string, age: CompactionAge): void;
  cleanup(operationId: string, priority: "manual" | "scheduled"): void;
  preparation(operationId: string): void;
};

export type WorkerCore = {
  deps: CompactionWorkerDeps;
  queue: SerialQueue;
  gate: WindowGate;
  /** The next scheduled pass, or the continuation of a pass between slices. */
  slot: SlotTimer;
  cache: VerificationCache;
  /** Preparations in flight, aborted by cancel and stop. */
  aborts: Map<string, AbortController>;
  state: WorkerState;
  ctx(): CommandContext;
  publish(operation: CompactionOperation): void;
  /** Ends whatever the slot holds for `operationId` without its job. */
  endOrphan(operationId: string, state: "failed" | "cancelled", code: string): Promise<void>;
  /** The relay to the lease holder while this worker is not started on an instance without the lease, else null. */
  relayed(): CommandRelay | null;
  /** Runs a timer's asynchronous body (it reads the record before it enqueues) so idle() waits for it. */
  track(body: () => Promise<void>): void;
  /** Resolves once no tracked timer body is running. */
  settled(): Promise<void>;
};

export function createWorkerCore(deps: CompactionWorkerDeps): WorkerCore {
  const { store, clock, timers, log, bus } = deps;
  const state: WorkerState = {
    running: false,
    scheduling: true,
    readyAtMs: 0,
    suspended: null,
    initialCleanupPending: false,
    initialOutsideWindow: false,
    queuedAtLastLook: null,
    relayedAnalysis: null,
  };
  const publish = (operation: CompactionOperation) => bus.publish(operationEvent(operation));
  const tracked = new Set<Promise<void>>();
  return {
    deps,
    queue: createSerialQueue({
      onError: (job, error) => log.error({ operationId: job.id, kind: job.kind, code: errorCode(error) }, "compaction job failed"),
    }),
    gate: createWindowGate({ window: deps.window ?? null, clock }),
    slot: createSlotTimer({ timers, clock, isRunning: () => state.running }),
    cache: deps.verificationCache ?? createVerificationCache(),
    aborts: new Map(),
    state,
    ctx: () => ({ store, nowMs: clock.now(), newId: deps.newId }),
    publish,
    async endOrphan(operationId, endState, code) {
      const ended = await endActiveOperation(store, { operationId, state: endState, code, nowMs: clock.now() });
      if (ended) publish(ended);
    },
    relayed: () => (!state.running && deps.relay?.remote() ? deps.relay : null),
    track(body) {
      const running = body().catch((error: unknown) => log.warn({ code: errorCode(error) }, "compaction timer failed"));
      tracked.add(running);
      void running.finally(() => tracked.delete(running));
    },
    async settled() {
      while (tracked.size > 0) await Promise.all([...tracked]);
    },
  };
}
