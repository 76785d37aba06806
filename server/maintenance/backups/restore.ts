import "server-only";
import type { RestoreResult } from "@/lib/database/api";
import { constants } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "../guard";
import type { QuiescerRegistry } from "../quiescence";
import { fsyncDir, fsyncFile } from "./hash";
import { backupPath } from "./names";
import type { MaintenanceStore } from "../store";

export type RestoreOptions = {
  /** Checks the staged copy before anything is stopped. */
  store: MaintenanceStore;
  dbFile: string;
  name: unknown;
  /** Typed confirmation: must be exactly the backup name. */
  confirm: unknown;
  guard: MaintenanceGuard;
  /** Stopped before the file is replaced and resumed afterwards (the runtime reopens its connection then). */
  quiescers: QuiescerRegistry;
  /** Closes every connection this process holds to dbFile (the runtime's). */
  closeDatabase: () => void;
  log: Logger;
};

export type { RestoreResult };

/**
 * Replaces the database with a backup. The copy is staged as
 * `<db>.restore-pending` and checked before anything is stopped, so a bad
 * backup changes nothing. Then the retention worker (and any other
 * registered component) is stopped, the runtime connection closed — which
 * checkpoints the WAL — the WAL/SHM files removed (a stale WAL must never be
 * replayed onto the restored file) and the pending copy renamed into place.
 * Resuming the quiescers reopens the runtime's connection and restarts its
 * worker. In-memory state of this process (caches, the frozen checkpoint
 * mode) describes the old database, hence restartRequired.
 *
 * Sign-in state is not rolled back: the live sessions and login throttle
 * are copied into the staged file just before the swap, so a session revoked
 * after the backup stays revoked and one started after it stays valid (as
 * long as its user exists in the restored data).
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const source = backupPath(options.dbFile, options.name);
  const name = path.basename(source);
  if (options.confirm !== name) {
    throw new AppError("invalid_request", "Type the exact backup name to confirm the restore");
  }
  const { log } = options;
  const dbFile = options.dbFile;
  const pending = `${dbFile}.restore-pending`;
  return options.guard.withExclusive({ owner: `restore:${name}`, kind: "restore" }, async () => {
    const stats = await fsp.lstat(source).catch(() => null);
    if (!stats || !stats.isFile()) throw new AppError("not_found", "No such backup");
    await fsp.rm(pending, { force: true });
    try {
      // COPYFILE_EXCL: never write through something planted at the pending path.
      await fsp.copyFile(source, pending, constants.COPYFILE_EXCL);
      await fsp.chmod(pending, 0o600);
      await fsyncFile(pending);
      if (!(await options.store.verifyFile(pending))) {
        throw new AppError("backup_unusable", "The backup failed its integrity check; the database was not changed");
      }
    } catch (error) {
      await fsp.rm(pending, { force: true });
      throw error;
    }
    const resume = await options.quiescers.quiesceAll();
    if (options.store.restoreInPlace) {
      // PostgreSQL: restored into the live database in one transaction; no file is swapped.
      try {
        const carriedInPlace = (await options.store.restoreInPlace(pending)).sessions;
        log.warn({ backup: name, sessionsKept: carriedInPlace }, "database restored from backup; restart required");
        return { restored: name, restartRequired: true as const };
      } finally {
        await fsp.rm(pending, { force: true });
        resume();
      }
    }
    let carried: number;
    try {
      // Synchronous from here to the close: no request can sign in or out
      // between the copy and the swap.
      try {
        carried = options.store.carrySignInStateInto(pending).sessions;
      } catch (error) {
        await fsp.rm(pending, { force: true });
        throw error;
      }
      options.closeDatabase();
      await fsp.rm(`${dbFile}-wal`, { force: true });
      await fsp.rm(`${dbFile}-shm`, { force: true });
      await fsp.rename(pending, dbFile);
      await fsyncDir(path.dirname(dbFile));
    } finally {
      resume();
    }
    log.warn({ backup: name, sessionsKept: carried }, "database restored from backup; restart required");
    return { restored: name, restartRequired: true as const };
  });
}

/**
 * A `<db>.restore-pending` found on start belongs to a restore that never
 * reached its rename: the old database is still in place and complete (its
 * WAL was checkpointed on close), so the half-finished restore is dropped
 * and the administrator can run it again.
 */
export async function sweepRestorePending(options: { dbFile: string }): Promise<boolean> {
  const pending = `${options.dbFile}.restore-pending`;
  const existed = await fsp.lstat(pending).then(
    () => true,
    () => false,
  );
  if (existed) await fsp.rm(pending, { force: true });
  return existed;
}
