// Building and ending the operation entries the two records keep (the
// active one, the latest analysis, the latest run). Counts and states only.
import "server-only";
import type {
  ExpiryAge,
  ExpirySkipReason,
  MaintenanceOperation,
  MaintenanceOperationKind,
  MaintenanceOperationState,
  MaintenanceTrigger,
} from "@/lib/checkpoints/maintenance-api";
import { formatUtc } from "@/lib/time/rfc3339";

/** What an operation counted: threads looked at, threads (and their rows and bytes) deleted or that would be, threads kept by reason. */
export type ExpiryCounts = { threadsScanned: number; threads: number; checkpoints: number; writes: number; bytes: number; skipped: Partial<Record<ExpirySkipReason, number>> };

/** The counts of an operation that has not counted anything yet (a new one, a preparation, an analysis in flight). */
export function emptyExpiryCounts(): ExpiryCounts {
  return { threadsScanned: 0, threads: 0, checkpoints: 0, writes: 0, bytes: 0, skipped: {} };
}

export function newOperation(options: {
  id: string;
  kind: MaintenanceOperationKind;
  trigger: MaintenanceTrigger;
  nowMs: number;
  state?: MaintenanceOperationState;
  cutoffMs?: number | null;
  age?: ExpiryAge | null;
  revision?: number | null;
}): MaintenanceOperation {
  return {
    id: options.id,
    kind: options.kind,
    trigger: options.trigger,
    state: options.state ?? "queued",
    startedAt: formatUtc(options.nowMs),
    finishedAt: null,
    cutoff: options.cutoffMs === undefined || options.cutoffMs === null ? null : formatUtc(options.cutoffMs),
    age: options.age ?? null,
    revision: options.revision ?? null,
    ...emptyExpiryCounts(),
    errorCode: null,
    cursor: null,
  };
}

/** The operation with the pass's counts so far. */
export function withCounts(operation: MaintenanceOperation, counts: ExpiryCounts, cursor: string | null): MaintenanceOperation {
  const skipped: Record<string, number> = {};
  for (const [reason, n] of Object.entries(counts.skipped)) if (n) skipped[reason] = n;
  return {
    ...operation,
    threadsScanned: counts.threadsScanned,
    threads: counts.threads,
    checkpoints: counts.checkpoints,
    writes: counts.writes,
    bytes: counts.bytes,
    skipped,
    cursor,
  };
}

/** The counts an operation entry carries (a continuation adds to them). */
export function countsOf(operation: MaintenanceOperation): ExpiryCounts {
  return {
    threadsScanned: operation.threadsScanned,
    threads: operation.threads,
    checkpoints: operation.checkpoints,
    writes: operation.writes,
    bytes: operation.bytes,
    skipped: { ...operation.skipped },
  };
}

export function finished(operation: MaintenanceOperation, options: { state: MaintenanceOperationState; nowMs: number; errorCode?: string | null }): MaintenanceOperation {
  return { ...operation, state: options.state, finishedAt: formatUtc(options.nowMs), errorCode: options.errorCode ?? null, cursor: null };
}
