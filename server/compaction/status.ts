// The GET body of Messages compaction. It reads the one bounded settings
// record and nothing else: no message scan, no write, no job start.
import "server-only";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { DAY_MS } from "@/server/jobs/schedule";
import { idleStatusBody, type CompactionStatusBody } from "@/lib/compaction/api";
import { createDefaultRecord, type Preparation, type CompactionOperation } from "./policy/policy-schema";
import { readCompactionRecord, salvageRevision } from "./policy/record";
import type { CompactionStore } from "./store";
import { zeroOperationCounts } from "./cleanup/tally";

/** The GET body; one type shared with the browser. */
export type CompactionStatus = CompactionStatusBody;

/** A finished result older than 24 hours is stale. */
export function markStale(operation: CompactionOperation | null, nowMs: number): CompactionOperation | null {
  if (!operation) return null;
  const finished = parseRfc3339(operation.finishedAt ?? operation.startedAt);
  const stale = finished !== null && nowMs - finished > DAY_MS;
  return { ...operation, stale: operation.stale || stale };
}

/**
 * A backup preparation in flight is shown as the active operation (DESIGN:
 * kind "preparation"), so the card and /cancel can name it. It does not hold
 * the slot in the record: analysis and cleanup queue behind it in the worker.
 */
export function preparationOperation(prep: Preparation): CompactionOperation | null {
  if (!prep.operationId || (prep.state !== "pending" && prep.state !== "running")) return null;
  return {
    id: prep.operationId,
    kind: "preparation",
    state: prep.state === "pending" ? "queued" : "running",
    startedAt: prep.state === "running" ? (prep.startedAt ?? null) : null,
    finishedAt: null,
    cutoff: null,
    ...zeroOperationCounts(),
    stale: false,
    ...(prep.revision === null ? {} : { revision: prep.revision }),
    ...(prep.state === "running" && prep.backupBytes ? { backupBytes: prep.backupBytes } : {}),
    errorCode: null,
  };
}

export function unsupportedStatus(): CompactionStatus {
  return idleStatusBody({ capability: "unsupported", recordState: "missing", policy: createDefaultRecord().policy });
}

export async function readCompactionStatus(store: CompactionStore, nowMs: number): Promise<CompactionStatus> {
  const read = await readCompactionRecord(store);
  if (read.state === "malformed") {
    // The revision a replacement must name; everything else reads as disabled.
    const idle = unsupportedStatus();
    const policy = { ...idle.policy, revision: salvageRevision(await store.readRecordText()) };
    return { ...idle, policy, capability: "supported", recordState: "malformed", lastErrorCode: read.errorCode };
  }
  const { policy, runtime } = read.record;
  return {
    capability: "supported",
    recordState: read.state,
    policy,
    preparation: {
      state: runtime.preparation.state,
      choice: runtime.preparation.choice,
      receipt: runtime.preparation.receipt,
      errorCode: runtime.preparation.errorCode,
      operationId: runtime.preparation.operationId,
    },
    armed: policy.enabled && runtime.preparation.state === "ready" && runtime.approvedRevision === policy.revision,
    latestAnalysis: markStale(runtime.latestAnalysis, nowMs),
    latestRun: markStale(runtime.latestRun, nowMs),
    activeOperation: runtime.activeOperation ?? preparationOperation(runtime.preparation),
    nextDueAt: runtime.nextDueAt,
    lastErrorCode: runtime.lastErrorCode,
  };
}
