// MAINTENANCE_WINDOW from the environment ("01:00-05:00 Europe/Lisbon").
import type { Logger } from "@/server/log";
import { parseMaintenanceWindow, type MaintenanceWindow } from "./maintenance-window";

/** The configured window; a malformed value is logged and means no window (today's behaviour), never a crash. */
export function maintenanceWindowFromEnv(env: Record<string, string | undefined>, log: Logger): MaintenanceWindow | null {
  const parsed = parseMaintenanceWindow(env.MAINTENANCE_WINDOW);
  if (parsed && "error" in parsed) {
    log.error({ setting: "MAINTENANCE_WINDOW", reason: parsed.error }, "MAINTENANCE_WINDOW ignored");
    return null;
  }
  return parsed;
}
