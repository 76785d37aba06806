// Polling cadence of the Messages compaction status (client only).
import type { CompactionStatusBody } from "@/lib/compaction/api";

/** True while something is moving on the server: poll faster then. */
export function isBusyStatus(status: CompactionStatusBody | undefined): boolean {
  if (!status) return false;
  return status.activeOperation !== null || status.preparation.state === "pending" || status.preparation.state === "running";
}

export const IDLE_POLL_MS = 15_000;
export const ACTIVE_POLL_MS = 2_000;

/** Polling cadence: steady, faster while an operation or preparation is active. */
export function pollIntervalFor(status: CompactionStatusBody | undefined): number {
  return isBusyStatus(status) ? ACTIVE_POLL_MS : IDLE_POLL_MS;
}
