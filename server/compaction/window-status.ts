// The maintenance window as the status API shows it.
import type { MaintenanceWindowView } from "@/lib/compaction/api";
import { formatUtc } from "@/lib/time/rfc3339";
import { formatWindowTime, windowState, type MaintenanceWindow } from "@/server/jobs/maintenance-window";

export function describeWindow(window: MaintenanceWindow | null, nowMs: number): MaintenanceWindowView | null {
  if (!window) return null;
  const state = windowState(window, nowMs);
  return {
    start: formatWindowTime(window.startMinute),
    end: formatWindowTime(window.endMinute),
    timeZone: window.timeZone,
    open: state.open,
    nextStartAt: formatUtc(state.nextStartMs),
    endsAt: state.endsAtMs === null ? null : formatUtc(state.endsAtMs),
  };
}
