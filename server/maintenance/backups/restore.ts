import "server-only";
import type { RestoreResult } from "@/lib/database/api";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "../guard";
import type { QuiescerRegistry } from "../quiescence";
import { fsyncDir } from "./hash";
import { backupsFolder } from "./folder";
import { stageCopy } from "./staged-copy";
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
 * Replaces the database with a backup. The backup is read once into a copy
 * in a private folder, `<db>.restore-pending/` (staged-copy.ts), and checked
 * before anything is stopped, so a bad backup changes nothing; the file
 * renamed into place is the one checked (its identity is compared right
 * before the swap). Then the compaction worker (and any other
 * registered component) is stopped, the runtime connection closed — which
 * checkpoints the WAL — the WAL/SHM files removed (a stale WAL must never be
 * replayed onto the restored file) and the pending copy renamed into place.
 * Resuming the quiescers reopens the runtime's connection and restarts its
 * worker. In-memory state of this process (caches, the frozen checkpoint
 * mode) describes the old database, hence restartRequired.
 *
 * Sign-in state is not rolled back: the live accounts, sessions and login
 * throttle are copied into the staged file just before the swap, so a
 * session revoked after the backup stays revoked, one started after it stays
 * valid, and a disabled, demoted or reset account stays so. Every open event
 * stream ends (the "event-streams" quiescer): its clients reconnect.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const source = backupPath(options.dbFile, options.name);
  const name = path.basename(source);
  if (options.confirm !== name) {
    throw new AppError("invalid_request", "Type the exact backup name to confirm the restore");
  }
  const { log } = options;
  const dbFile = options.dbFile;
  const pendingDir = `${dbFile}.restore-pending`;
  return options.guard.withExclusive({ owner: `restore:${name}`, kind: "restore" }, async () => {
    if (!(await backupsFolder(dbFile))) throw new AppError("not_found", "No such backup");
    // The backup is read once, into a private folder; the file checked below is the one swapped in.
    const staged = await stageCopy({ source, dir: pendingDir, name: path.basename(dbFile) });
    const swapped = () => new AppError("backup_unusable", "The staged copy of the backup changed after it was checked; the database was not changed");
    try {
      if (!(await options.store.verifyFile(staged.file))) {
        throw new AppError("backup_unusable", "The backup failed its integrity check; the database was not changed");
      }
      if (!staged.unchanged()) throw swapped();
    } catch (error) {
      await staged.discard();
      throw error;
    }
    const resume = await options.quiescers.quiesceAll();
    if (options.store.restoreInPlace) {
      // PostgreSQL: restored into the live database in one transaction; no file is swapped.
      try {
        if (!staged.unchanged()) throw swapped();
        const carriedInPlace = (await options.store.restoreInPlace(staged.file)).sessions;
        log.warn({ backup: name, sessionsKept: carriedInPlace }, "database restored from backup; restart required");
        return { restored: name, restartRequired: true as const };
      } finally {
        await staged.discard();
        resume();
      }
    }
    let carried: number;
    try {
      // The copy and the close hold the writer queue: no request can sign in
      // or out between the copy and the swap.
      try {
        carried = (await options.store.carrySignInStateAndClose(staged.file)).sessions;
        if (!staged.unchanged()) throw swapped();
      } catch (error) {
        await staged.discard();
        throw error;
      }
      // Synchronous from the identity check to the rename: nothing else runs in between.
      options.closeDatabase();
      if (!staged.unchanged()) {
        await staged.discard();
        throw swapped();
      }
      fs.rmSync(`${dbFile}-wal`, { force: true });
      fs.rmSync(`${dbFile}-shm`, { force: true });
      fs.renameSync(staged.file, dbFile);
      await fsyncDir(path.dirname(dbFile));
      await staged.discard();
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
  // A folder since the copy is staged privately (a file from older versions).
  if (existed) await fsp.rm(pending, { recursive: true, force: true });
  return existed;
}
