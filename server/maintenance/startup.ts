import "server-only";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "./guard";
import { sweepStaleStaging } from "./backups/create";
import { tightenBackupModes } from "./backups/file-modes";
import { backupsFolderState } from "./backups/folder";
import { sweepRestorePending } from "./backups/restore";
import { reportUnverifiableLock } from "./unverifiable-lock";

/**
 * Start-of-process maintenance: removes backup staging directories a crash
 * left behind (their snapshot was never published) and the copy of a restore
 * that never reached its rename, and logs a maintenance lock of another host
 * (unverifiable-lock.ts). Backup files and folders readable by others
 * are tightened first (synchronously: a few chmods) and logged. The sweeps
 * are fire-and-forget so they never block boot; a failure is logged with its
 * code only.
 */
export function startMaintenance(options: { dbFile: string; guard: MaintenanceGuard; log: Logger }): void {
  const folder = backupsFolderState(options.dbFile);
  if (folder !== "ok" && folder !== "missing") {
    options.log.error({ event: "backups_folder_unsafe", state: folder }, "the backups folder is a symlink, not a folder or another user's: backups are refused until it is removed or renamed");
  }
  const tightened = tightenBackupModes({ dbFile: options.dbFile });
  if (tightened.length > 0) options.log.warn({ files: tightened }, "tightened backup file modes to 0600/0700");
  reportUnverifiableLock(options).catch(() => {
    // The lock file is unreadable: the guard fails closed and says so when it is asked.
  });
  Promise.all([sweepStaleStaging({ dbFile: options.dbFile, guard: options.guard }), sweepRestorePending({ dbFile: options.dbFile })])
    .then(([removed, restorePending]) => {
      if (removed > 0 || restorePending) options.log.warn({ removed, restorePending }, "removed leftovers of interrupted maintenance");
    })
    .catch((error: unknown) => {
      options.log.error({ err: { code: (error as { code?: unknown }).code } }, "backup staging sweep failed");
    });
}
