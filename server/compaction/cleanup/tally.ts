// Counters of one analysis or cleanup pass and their conversion to the
// bounded operation record. Skip reasons share one map: task-level reasons
// (eligibility: recent_activity, live_run, eligibility_budget, ...) count
// TASKS, row-level reasons (reducer skips, oversize, conflict) count MESSAGES.
import "server-only";
import { formatUtc } from "@/lib/time/rfc3339";
import type { OperationKind, OperationState, CompactionOperation } from "@/lib/compaction/policy";

export type Tally = {
  processedTasks: number;
  processedMessages: number;
  scannedRows: number;
  eligibleTasks: number;
  eligibleMessages: number;
  changedMessages: number;
  payloadBytes: number;
  skipped: Record<string, number>;
  byKind: Record<string, { messages: number; payloadBytes: number }>;
};

// The counts an operation record starts from, before any row is read.
export function zeroOperationCounts() {
  return { scannedRows: 0, eligibleTasks: 0, eligibleMessages: 0, changedMessages: 0, payloadBytes: 0, skipped: {} as Record<string, number> };
}

export function createTally(): Tally {
  return { processedTasks: 0, processedMessages: 0, ...zeroOperationCounts(), byKind: {} };
}

/** The normalized kind a change removed fields from; the message type when only `result` went. */
export function kindOf(removedFields: string[], type: string): string {
  for (const path of removedFields) {
    const [head, kind] = path.split(".");
    if (head === "normalized" && kind) return kind;
  }
  return type;
}

/** Adds `delta` into `into` (used to carry uncommitted progress into a batch commit). */
export function addTally(into: Tally, delta: Tally): void {
  into.processedTasks += delta.processedTasks;
  into.processedMessages += delta.processedMessages;
  into.scannedRows += delta.scannedRows;
  into.eligibleTasks += delta.eligibleTasks;
  into.eligibleMessages += delta.eligibleMessages;
  into.changedMessages += delta.changedMessages;
  into.payloadBytes += delta.payloadBytes;
  for (const [reason, count] of Object.entries(delta.skipped)) into.skipped[reason] = (into.skipped[reason] ?? 0) + count;
  for (const [kind, entry] of Object.entries(delta.byKind)) {
    const target = (into.byKind[kind] ??= { messages: 0, payloadBytes: 0 });
    target.messages += entry.messages;
    target.payloadBytes += entry.payloadBytes;
  }
}

/** Restores counters from a stored operation (a resumed cleanup pass). */
export function tallyFromOperation(operation: CompactionOperation): Tally {
  return {
    processedTasks: operation.progress?.processedTasks ?? 0,
    processedMessages: operation.progress?.processedMessages ?? 0,
    scannedRows: operation.scannedRows,
    eligibleTasks: operation.eligibleTasks,
    eligibleMessages: operation.eligibleMessages,
    changedMessages: operation.changedMessages,
    payloadBytes: operation.payloadBytes,
    skipped: { ...operation.skipped },
    byKind: structuredClone(operation.byKind ?? {}),
  };
}

type OperationCounts = Pick<CompactionOperation, "scannedRows" | "eligibleTasks" | "eligibleMessages" | "changedMessages" | "payloadBytes" | "skipped">;

/** The counters an operation record carries (all zero for a fresh tally). */
export function operationCounts(tally: Tally): OperationCounts {
  return {
    scannedRows: tally.scannedRows,
    eligibleTasks: tally.eligibleTasks,
    eligibleMessages: tally.eligibleMessages,
    changedMessages: tally.changedMessages,
    payloadBytes: tally.payloadBytes,
    skipped: { ...tally.skipped },
  };
}

export function tallyOperation(options: {
  tally: Tally;
  id: string;
  kind: OperationKind;
  state: OperationState;
  startedMs: number;
  finishedMs: number | null;
  cutoffMs: number;
  fingerprint?: string;
  revision?: number;
}): CompactionOperation {
  const { tally, state } = options;
  const operation: CompactionOperation = {
    id: options.id,
    kind: options.kind,
    state,
    startedAt: formatUtc(options.startedMs),
    finishedAt: options.finishedMs === null ? null : formatUtc(options.finishedMs),
    cutoff: formatUtc(options.cutoffMs),
    ...operationCounts(tally),
    stale: false,
    // Only a finished, complete walk knows its total; anything else never
    // claims one, so a partial result cannot look complete.
    progress: {
      processedTasks: tally.processedTasks,
      totalTasks: state === "succeeded" ? tally.processedTasks : null,
      processedMessages: tally.processedMessages,
    },
    byKind: structuredClone(tally.byKind),
  };
  if (options.fingerprint !== undefined) operation.fingerprint = options.fingerprint;
  if (options.revision !== undefined) operation.revision = options.revision;
  return operation;
}
