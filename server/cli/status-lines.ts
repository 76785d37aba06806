import type { CompactionStatusBody, MaintenanceWindowView } from "@/lib/compaction/api";
import type { CompactionOperation } from "@/lib/compaction/policy";
import { formatBytes, formatBytesExact } from "@/lib/i18n/format";
import { formatAge } from "./parse-age";

/**
 * A size in the product's one unit system (decimal SI, as the cards show it)
 * with the exact count beside it: "21 MB (21,077,029 bytes)".
 */
export function describeBytes(bytes: number): string {
  return `${formatBytes(bytes, "en")} (${formatBytesExact(bytes, "en")} bytes)`;
}

function describeOperation(label: string, operation: CompactionOperation | null): string {
  if (!operation) return `${label}: none`;
  const code = operation.errorCode ? ` (${operation.errorCode})` : "";
  const when = operation.finishedAt ?? operation.startedAt ?? "not started";
  return `${label}: ${operation.kind} ${operation.id} ${operation.state}${code}, ${when}; ${operation.scannedRows} rows scanned, ${operation.eligibleMessages} eligible, ${operation.changedMessages} changed, payload ${describeBytes(operation.payloadBytes)}`;
}

/** An instant as the window's own wall clock, with the UTC instant beside it for logs and scripts. */
function inWindowZone(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")} ${timeZone} (${iso})`;
}

function describeWindow(window: MaintenanceWindowView | null | undefined): string {
  if (!window) return "maintenance window: none (cleanup may run at any time)";
  const state = window.open && window.endsAt ? `open until ${inWindowZone(window.endsAt, window.timeZone)}` : "closed";
  return `maintenance window: ${window.start}-${window.end} ${window.timeZone}, ${state}; next start ${inWindowZone(window.nextStartAt, window.timeZone)}`;
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
    describeWindow(status.maintenanceWindow),
    `maintenance guard: ${busyWith ?? "free"}`,
  ];
}
