import "server-only";
// The storage history's sampler, one per runtime: a sample once per UTC day
// and one after every maintenance operation that changes the footprint. The
// sizes are read off the writer (the maintenance store's footprint: dbstat
// on a read-only connection on a worker thread on SQLite, the catalog on
// PostgreSQL); the writer only inserts the small row and prunes old ones.
// Samples are taken one at a time, in order; none is taken twice for the
// same day or operation (the key is unique in the table, so two instances,
// or a retried event, insert one row).
import fs from "node:fs";
import path from "node:path";
import { STORAGE_HISTORY_RETENTION_DAYS, type StorageTrigger } from "@/lib/database/history-api";
import type { OperationKind, SystemEvent } from "@/lib/events/api";
import type { Clock, Timers } from "@/server/clock";
import type { EventBus } from "@/server/events/bus";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "../guard";
import type { MaintenanceStore } from "../store";
import { buildSample, dailyKey, operationKey } from "./sample";
import type { HistoryStore } from "./store";

const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;
/** The first daily check waits this long after start, so boot does not pay for it. */
export const FIRST_CHECK_DELAY_MS = MINUTE_MS;
/** The daily sample is taken this long after UTC midnight. */
export const DAILY_OFFSET_MS = 5 * MINUTE_MS;
/** While another maintenance operation holds the guard (its sizes are in flux), the daily sample waits this long. */
export const BUSY_RETRY_MS = 5 * MINUTE_MS;
/** After a failed daily sample. */
export const FAILURE_RETRY_MS = 60 * MINUTE_MS;
/** Bound on stored samples whatever their age (400 daily ones plus a dozen operations a day fit). */
export const MAX_SAMPLES = 5000;
/** Samples waiting behind the running one; more are dropped (logged): they would say the same. */
const MAX_PENDING = 16;

/** The operation kinds whose end is followed by a sample, and the trigger each records. */
const OPERATION_TRIGGERS: Partial<Record<OperationKind, Exclude<StorageTrigger, "daily">>> = {
  cleanup: "compaction",
  checkpoint_cleanup: "checkpoint_cleanup",
  payload_restore: "payload_restore",
};
const ENDED = new Set(["succeeded", "partial", "failed", "cancelled"]);
/** Triggers whose operation reports bytes it removed (a payload restore adds them back instead). */
const RECLAIMING = new Set<StorageTrigger>(["compaction", "checkpoint_cleanup", "thread_expiry", "vacuum"]);

export type AfterOperation = {
  trigger: Exclude<StorageTrigger, "daily">;
  operationId: string;
  /** What the operation reports giving back; ignored for restores. */
  reclaimedBytes?: number | null;
};

export type SampleOutcome = { sampleId: number | null; writerMs: number } | null;

export type StorageHistory = {
  /**
   * The hook a maintenance operation calls when it ends: takes a sample
   * after it. Never throws (a failure is logged); resolves with the new
   * sample's id (null when this operation already has one), or null when
   * no sample could be taken.
   */
  recordAfter(operation: AfterOperation): Promise<SampleOutcome>;
  /** The daily sample now, unless today's exists (tests, the demo). */
  recordDaily(): Promise<SampleOutcome>;
  /** Samples after the operations this process's event bus reports ending. Idempotent. */
  listen(): void;
  /** Arms the daily sample (the server; the CLI leaves it to the server). Idempotent. */
  start(): void;
  /** Stops the schedule and waits for the sample being taken. */
  stop(): Promise<void>;
};

export type StorageHistoryDeps = {
  /** The open stores; null while the database is closed (a restore) or the engine unsupported. */
  stores: () => { maintenance: MaintenanceStore; history: HistoryStore } | null;
  engine: "sqlite" | "postgres";
  /** SQLite: the database file, whose file system's free space each sample records. */
  dbFile: string | null;
  clock: Clock;
  timers: Timers;
  log: Logger;
  bus: EventBus;
  guard: MaintenanceGuard;
};

type Request = { key: string; trigger: StorageTrigger; operationId: string | null; reclaimedBytes: number | null };

/** Space left on the file system that holds `dbFile` (null when unknown). */
export async function diskFreeBytes(dbFile: string | null): Promise<number | null> {
  if (!dbFile) return null;
  try {
    const stat = await fs.promises.statfs(path.dirname(dbFile));
    return stat.bavail * stat.bsize;
  } catch {
    return null;
  }
}

/** When the next daily sample is due after `nowMs`: the next UTC midnight plus the offset. */
export function nextDailyAt(nowMs: number): number {
  const midnight = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const today = midnight + DAILY_OFFSET_MS;
  return nowMs < today ? today : today + DAY_MS;
}

export function createStorageHistory(deps: StorageHistoryDeps): StorageHistory {
  const { clock, timers, log } = deps;
  let chain: Promise<unknown> = Promise.resolve();
  const pending = new Set<string>();
  let unsubscribe: (() => void) | null = null;
  let timer: unknown = null;
  let started = false;
  let stopped = false;

  const take = async (request: Request): Promise<SampleOutcome> => {
    const stores = deps.stores();
    if (!stores || stopped) return null;
    if (await stores.history.hasKey(request.key)) return { sampleId: null, writerMs: 0 };
    const stats = await stores.maintenance.databaseStats();
    const sample = buildSample(stats, {
      atMs: clock.now(),
      sampleKey: request.key,
      trigger: request.trigger,
      operationId: request.operationId,
      reclaimedBytes: request.reclaimedBytes,
      diskFreeBytes: await diskFreeBytes(deps.engine === "sqlite" ? deps.dbFile : null),
      engine: deps.engine,
    });
    // The database may have closed while the sizes were read (a restore began).
    const now = deps.stores();
    if (!now || stopped) return null;
    const t0 = performance.now();
    const sampleId = await now.history.insertSample(sample, { pruneBeforeMs: sample.atMs - STORAGE_HISTORY_RETENTION_DAYS * DAY_MS, maxRows: MAX_SAMPLES });
    const writerMs = performance.now() - t0;
    log.info({ trigger: request.trigger, operationId: request.operationId, sampleId, usedBytes: sample.usedBytes, writerMs: Math.round(writerMs * 100) / 100 }, "storage sample recorded");
    if (sampleId !== null) deps.bus.publish({ type: "storage_sampled", sampleId, trigger: request.trigger, atMs: sample.atMs });
    return { sampleId, writerMs };
  };

  const enqueue = (request: Request): Promise<SampleOutcome> => {
    if (stopped) return Promise.resolve(null);
    if (pending.has(request.key)) return Promise.resolve({ sampleId: null, writerMs: 0 });
    if (pending.size >= MAX_PENDING) {
      log.warn({ trigger: request.trigger, pending: pending.size }, "storage sample dropped: too many waiting");
      return Promise.resolve(null);
    }
    pending.add(request.key);
    const run = async (): Promise<SampleOutcome> => {
      try {
        return await take(request);
      } catch (error) {
        log.warn({ trigger: request.trigger, operationId: request.operationId, err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "storage sample failed");
        return null;
      } finally {
        pending.delete(request.key);
      }
    };
    const result = chain.then(run, run);
    chain = result;
    return result;
  };

  const recordAfter = (operation: AfterOperation) =>
    enqueue({
      key: operationKey(operation.trigger, operation.operationId),
      trigger: operation.trigger,
      operationId: operation.operationId,
      reclaimedBytes: RECLAIMING.has(operation.trigger) ? (operation.reclaimedBytes ?? null) : null,
    });

  const recordDaily = () => enqueue({ key: dailyKey(clock.now()), trigger: "daily", operationId: null, reclaimedBytes: null });

  const arm = (delayMs: number) => {
    if (stopped) return;
    if (timer !== null) timers.clearTimeout(timer);
    timer = timers.setTimeout(() => void check(), Math.max(0, delayMs));
    (timer as { unref?: () => void } | null)?.unref?.();
  };

  const check = async () => {
    timer = null;
    if (stopped) return;
    try {
      if (await deps.guard.holder()) {
        arm(BUSY_RETRY_MS);
        return;
      }
    } catch {
      // The guard could not be asked (the lock's session is being reopened): sample anyway.
    }
    const outcome = await recordDaily();
    arm(outcome === null ? FAILURE_RETRY_MS : nextDailyAt(clock.now()) - clock.now());
  };

  const onEvent = (event: SystemEvent) => {
    // Checkpoint cleanups and thread expiry announce their end with what they removed.
    if (event.type === "maintenance_finished") {
      if (event.state !== "succeeded" && event.removedRows === 0) return;
      void recordAfter({ trigger: event.kind, operationId: event.operationId, reclaimedBytes: event.removedBytes });
      return;
    }
    if (event.type !== "operation" || !ENDED.has(event.state)) return;
    const trigger = OPERATION_TRIGGERS[event.kind];
    if (!trigger) return;
    // An operation that ended without changing anything leaves nothing to show.
    if (event.state !== "succeeded" && event.progress.changedMessages === 0) return;
    void recordAfter({ trigger, operationId: event.operationId, reclaimedBytes: event.progress.payloadBytes });
  };

  return {
    recordAfter,
    recordDaily,
    listen() {
      if (unsubscribe || stopped) return;
      unsubscribe = deps.bus.subscribe(onEvent);
    },
    start() {
      if (started || stopped) return;
      started = true;
      arm(FIRST_CHECK_DELAY_MS);
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      unsubscribe = null;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      await chain.catch(() => undefined);
    },
  };
}
