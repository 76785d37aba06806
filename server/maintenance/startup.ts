import "server-only";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "./guard";
import { sweepStaleStaging } from "./backups/create";
import { sweepRestorePending } from "./backups/restore";

/**
 * Start-of-process maintenance: removes backup staging directories a crash
 * left behind (their snapshot was never published) and the copy of a restore
 * that never reached its rename. Fire-and-forget so it
 * never blocks boot; a failure is logged with its code only.
 */
export function startMaintenance(options: { dbFile: string; guard: MaintenanceGuard; log: Logger }): void {
  Promise.all([sweepStaleStaging({ dbFile: options.dbFile, guard: options.guard }), sweepRestorePending({ dbFile: options.dbFile })])
    .then(([removed, restorePending]) => {
      if (removed > 0 || restorePending) options.log.warn({ removed, restorePending }, "removed leftovers of interrupted maintenance");
    })
    .catch((error: unknown) => {
      options.log.error({ err: { code: (error as { code?: unknown }).code } }, "backup staging sweep failed");
    });
}
