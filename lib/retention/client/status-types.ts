// The GET body of Messages compaction; server/retention/status.ts builds it.
import type { BackupReceipt, OperationProgress, RetentionOperation, RetentionPolicy, SkipReceipt } from "@/lib/retention/policy";

export type RetentionStatusBody = {
  capability: "supported" | "unsupported";
  recordState: "ok" | "missing" | "malformed";
  policy: RetentionPolicy;
  preparation: {
    state: "none" | "pending" | "running" | "ready" | "failed";
    choice: "backup" | "skip" | null;
    receipt: BackupReceipt | SkipReceipt | null;
    errorCode: string | null;
    operationId: string | null;
  };
  armed: boolean;
  latestAnalysis: RetentionOperation | null;
  latestRun: RetentionOperation | null;
  activeOperation: RetentionOperation | null;
  nextDueAt: string | null;
  lastErrorCode: string | null;
};

export type { OperationProgress, RetentionOperation, RetentionPolicy };

/** True while something is moving on the server: poll faster then. */
export function isBusyStatus(status: RetentionStatusBody | undefined): boolean {
  if (!status) return false;
  return status.activeOperation !== null || status.preparation.state === "pending" || status.preparation.state === "running";
}

export const IDLE_POLL_MS = 15_000;
export const ACTIVE_POLL_MS = 2_000;

/** Polling cadence: steady, faster while an operation or preparation is active. */
export function pollIntervalFor(status: RetentionStatusBody | undefined): number {
  return isBusyStatus(status) ? ACTIVE_POLL_MS : IDLE_POLL_MS;
}
