// The active-operation slot of the compaction record. Analysis and cleanup
// reserve it when they are accepted (so a duplicate request is a 409 and a
// restart finds what was in flight); preparation lives in
// runtime.preparation and queues behind them in the one worker.
import "server-only";
import { AppError } from "@/server/errors";
import { formatUtc } from "@/lib/time/rfc3339";
import type { OperationEvent } from "@/lib/events/api";
import type { OperationKind, OperationState, CompactionOperation, CompactionRecord } from "./policy-schema";
import type { CompactionStore } from "../store";
import { withCompactionRecordInTx } from "./record";
import { createTally, operationCounts } from "../cleanup/tally";

export function emptyOperation(options: {
  id: string;
  kind: OperationKind;
  state: OperationState;
  nowMs: number;
  cutoffMs?: number | null;
}): CompactionOperation {
  return {
    id: options.id,
    kind: options.kind,
    state: options.state,
    startedAt: options.state === "queued" ? null : formatUtc(options.nowMs),
    finishedAt: null,
    cutoff: options.cutoffMs == null ? null : formatUtc(options.cutoffMs),
    ...operationCounts(createTally()),
    stale: false,
  };
}

/** Runs `fn` on a private copy of the record inside one IMMEDIATE writer transaction. */
export async function editRecord<T>(
  store: CompactionStore,
  nowMs: number,
  fn: (record: CompactionRecord) => { next: CompactionRecord | null; result: T },
): Promise<T> {
  return store.writeTransaction((tx) =>
    withCompactionRecordInTx(tx, async ({ current, write }) => {
      if (current.state === "malformed") {
        throw new AppError("settings_malformed", "The stored Messages compaction settings are malformed.");
      }
      const { next, result } = fn(structuredClone(current.record));
      if (next) await write(next, nowMs);
      return result;
    }),
  );
}

/** Reserves the active slot, or 409 operation_active when another operation holds it. */
export function reserveOperation(record: CompactionRecord, operation: CompactionOperation): CompactionRecord {
  const active = record.runtime.activeOperation;
  if (active) {
    throw new AppError("operation_active", `Another ${active.kind} operation is already active`, { operationId: active.id });
  }
  record.runtime.activeOperation = operation;
  return record;
}

/** Stores a finished analysis as the latest one and frees the slot if it still holds it. */
export async function finishAnalysisRecord(store: CompactionStore, options: { operation: CompactionOperation; nowMs: number }): Promise<void> {
  await editRecord(store, options.nowMs, (record) => {
    record.runtime.latestAnalysis = options.operation;
    if (record.runtime.activeOperation?.id === options.operation.id) record.runtime.activeOperation = null;
    return { next: record, result: undefined };
  });
}

/**
 * Manual jobs take priority: a cleanup pass that waits between slices steps
 * aside (slot and cursor kept in `waitingCleanup`/`waitingCursor`) so the
 * manual job can reserve the slot. Only one pass can wait at a time; a second
 * manual job meets the one holding the slot and gets its 409.
 */
export function stepAsideForManualJob(record: CompactionRecord, waitingCleanupId: string | null | undefined): void {
  const { runtime } = record;
  const active = runtime.activeOperation;
  if (!waitingCleanupId || active?.kind !== "cleanup" || active.id !== waitingCleanupId || runtime.waitingCleanup) return;
  runtime.betweenSlices = null;
  runtime.waitingCleanup = active;
  runtime.waitingCursor = runtime.cursor?.operationId === active.id ? runtime.cursor : null;
  runtime.waitingSchemaVersion = runtime.schemaVersion;
  runtime.activeOperation = null;
  runtime.cursor = null;
}

/** Puts the waiting pass back into a free slot with its own cursor (in place). */
function restoreWaiting(record: CompactionRecord): string | null {
  const { runtime } = record;
  const waiting = runtime.waitingCleanup;
  if (!waiting || runtime.activeOperation) return null;
  runtime.activeOperation = waiting;
  runtime.cursor = runtime.waitingCursor ?? null;
  runtime.schemaVersion = runtime.waitingSchemaVersion ?? null;
  runtime.waitingCleanup = null;
  runtime.waitingCursor = null;
  runtime.waitingSchemaVersion = null;
  return waiting.id;
}

/** Puts a cleanup that stepped aside for a manual job back into the free slot; returns its id. */
export function resumeWaitingCleanup(store: CompactionStore, nowMs: number): Promise<string | null> {
  return editRecord(store, nowMs, (record) => {
    const id = restoreWaiting(record);
    return { next: id ? record : null, result: id };
  });
}

/** Updates the progress snapshot of the active operation (status reads show it). */
export async function saveActiveProgress(store: CompactionStore, options: { operation: CompactionOperation; nowMs: number }): Promise<void> {
  await editRecord(store, options.nowMs, (record) => {
    if (record.runtime.activeOperation?.id !== options.operation.id) return { next: null, result: undefined };
    record.runtime.activeOperation = options.operation;
    return { next: record, result: undefined };
  });
}

/**
 * After a restart: an analysis or preparation that was running is marked
 * interrupted (distinguishable from success); a cleanup pass keeps its
 * cursor so it resumes. `ownQueued`: an analysis this process accepted
 * itself before its worker started; still queued, it stays for this worker
 * (`keptAnalysis`). Returns what the worker should resume.
 */
export function recoverInterrupted(
  store: CompactionStore,
  nowMs: number,
  options: { ownQueued?: string | null } = {},
): Promise<{ resumeCleanup: string | null; pendingPreparation: string | null; keptAnalysis: boolean }> {
  return editRecord(store, nowMs, (record) => {
    const { runtime } = record;
    let changed = false;
    let resumeCleanup: string | null = null;
    let keptAnalysis = false;
    const active = runtime.activeOperation;
    if (active?.kind === "analysis" && active.state === "queued" && active.id === options.ownQueued) {
      keptAnalysis = true;
    } else if (active?.kind === "analysis") {
      runtime.latestAnalysis = {
        ...active,
        state: active.state === "queued" ? "cancelled" : "partial",
        finishedAt: formatUtc(nowMs),
        errorCode: "interrupted",
      };
      if (runtime.latestAnalysis.progress) runtime.latestAnalysis.progress = { ...runtime.latestAnalysis.progress, totalTasks: null };
      runtime.activeOperation = null;
      changed = true;
    } else if (active?.kind === "cleanup") {
      resumeCleanup = active.id;
    } else if (active) {
      runtime.activeOperation = null;
      changed = true;
    }
    // The manual job it waited for ended with the process: resume the pass.
    // (A manual cleanup still in the slot resumes first; the worker puts the
    // waiting one back when that ends.)
    const restored = restoreWaiting(record);
    if (restored) {
      resumeCleanup = restored;
      changed = true;
    }
    let pendingPreparation: string | null = null;
    const prep = runtime.preparation;
    if (prep.state === "running") {
      // A crash during the backup: nothing was published under the receipt
      // and cleanup stays unarmed until an explicit retry.
      runtime.preparation = { ...prep, state: "failed", errorCode: "backup_interrupted" };
      runtime.lastErrorCode = "backup_interrupted";
      changed = true;
    } else if (prep.state === "pending" && prep.operationId) {
      pendingPreparation = prep.operationId;
    }
    return { next: changed ? record : null, result: { resumeCleanup, pendingPreparation, keptAnalysis } };
  });
}

/** Moves the active operation from queued to running; returns it while it is still ours. */
export function markActiveRunning(store: CompactionStore, options: { operationId: string; nowMs: number }): Promise<CompactionOperation | null> {
  return editRecord(store, options.nowMs, (record) => {
    const active = record.runtime.activeOperation;
    if (active?.id !== options.operationId) return { next: null, result: null };
    // A slice starts: no manual job accepted elsewhere may take the slot from it now.
    const sliceStarts = record.runtime.betweenSlices === options.operationId;
    if (sliceStarts) record.runtime.betweenSlices = null;
    if (active.state !== "queued") return { next: sliceStarts ? record : null, result: active };
    record.runtime.activeOperation = { ...active, state: "running", startedAt: formatUtc(options.nowMs) };
    return { next: record, result: record.runtime.activeOperation };
  });
}

/**
 * Frees the slot with a final state when the operation's own code could not
 * record one (cancelled while waiting, a job that threw). The result keeps
 * its committed counts and never claims a complete total.
 */
export function endActiveOperation(
  store: CompactionStore,
  options: { operationId: string; state: "failed" | "cancelled"; code: string; nowMs: number },
): Promise<CompactionOperation | null> {
  return editRecord(store, options.nowMs, (record) => {
    const waiting = record.runtime.waitingCleanup;
    if (waiting && waiting.id === options.operationId) {
      // A pass that stepped aside for a manual job ends where it waits.
      const operation: CompactionOperation = { ...waiting, state: options.state, finishedAt: formatUtc(options.nowMs), errorCode: options.code };
      if (operation.progress) operation.progress = { ...operation.progress, totalTasks: null };
      record.runtime.latestRun = operation;
      record.runtime.waitingCleanup = null;
      record.runtime.waitingCursor = null;
      record.runtime.waitingSchemaVersion = null;
      if (options.state === "failed") record.runtime.lastErrorCode = options.code;
      return { next: record, result: operation };
    }
    const active = record.runtime.activeOperation;
    if (active?.id !== options.operationId) return { next: null, result: null };
    const operation: CompactionOperation = { ...active, state: options.state, finishedAt: formatUtc(options.nowMs), errorCode: options.code };
    if (operation.progress) operation.progress = { ...operation.progress, totalTasks: null };
    if (active.kind === "analysis") {
      record.runtime.latestAnalysis = operation;
    } else {
      record.runtime.latestRun = operation;
      record.runtime.cursor = null;
      if (options.state === "failed") record.runtime.lastErrorCode = options.code;
    }
    record.runtime.activeOperation = null;
    return { next: record, result: operation };
  });
}

/** The live event for an operation: identity, state and counts only. */
export function operationEvent(operation: CompactionOperation): OperationEvent {
  const progress = operation.progress;
  return {
    type: "operation",
    operationId: operation.id,
    kind: operation.kind,
    state: operation.state,
    progress: {
      scannedRows: operation.scannedRows,
      eligibleMessages: operation.eligibleMessages,
      changedMessages: operation.changedMessages,
      payloadBytes: operation.payloadBytes,
      fraction: progress?.totalTasks ? progress.processedTasks / progress.totalTasks : null,
    },
  };
}
