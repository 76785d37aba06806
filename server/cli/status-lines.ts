import type { CompactionStatusBody } from "@/lib/compaction/api";
import type { RetentionOperation } from "@/lib/compaction/policy";
import { formatAge } from "./parse-age";

function describeOperation(label: string, operation: RetentionOperation | null): string {
  if (!operation) return `${label}: none`;
  const code = operation.errorCode ? ` (${operation.errorCode})` : "";
  const when = operation.finishedAt ?? operation.startedAt ?? "not started";
  return `${label}: ${operation.kind} ${operation.id} ${operation.state}${code}, ${when}; ${operation.scannedRows} rows scanned, ${operation.eligibleMessages} eligible, ${operation.changedMessages} changed, ${operation.payloadBytes} payload bytes`;
}

/** The human view of the status body: ids, states and counts only. */
export function statusLines(status: CompactionStatusBody, busyWith: string | null): string[] {
  const { policy, preparation } = status;
  return [
    `policy: ${policy.enabled ? "enabled" : "disabled"}, older than ${formatAge(policy.age)}, revision ${policy.revision}${status.recordState === "ok" ? "" : ` (record ${status.recordState})`}`,
    `preparation: ${preparation.state}${preparation.choice ? ` (${preparation.choice})` : ""}${preparation.errorCode ? `, ${preparation.errorCode}` : ""}; armed: ${status.armed ? "yes" : "no"}`,
    describeOperation("active", status.activeOperation),
    describeOperation("latest analysis", status.latestAnalysis),
    describeOperation("latest run", status.latestRun),
    `next pass due: ${status.nextDueAt ?? "not scheduled"}`,
    `maintenance guard: ${busyWith ?? "free"}`,
  ];
}
