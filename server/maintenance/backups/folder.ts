import "server-only";
import type { Stats } from "node:fs";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { isLooserThanPrivate, PRIVATE_DIR_MODE } from "@/server/db/file-modes";
import { backupsDirFor } from "@/server/db/url";
import { AppError } from "@/server/errors";

/**
 * The backups folder is used only when it is a real directory owned by this
 * server's user. In a shared folder someone else can create `backups`
 * before the first backup: as a symlink to a folder of theirs, every
 * backup (password hashes, every payload) would be written where they can
 * read it, and their files listed and restored as ours; as a folder of their
 * own they could swap our files inside it. Such a folder is never followed
 * or written: `backups_folder_unsafe` until an administrator removes it.
 */
export type BackupsFolderState = "missing" | "ok" | "symlink" | "not_directory" | "foreign_owner";

function judge(stats: Stats): BackupsFolderState {
  if (stats.isSymbolicLink()) return "symlink";
  if (!stats.isDirectory()) return "not_directory";
  // POSIX only; elsewhere the ownership check is skipped.
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  if (uid !== null && stats.uid !== uid) return "foreign_owner";
  return "ok";
}

/** What is at the backups folder's path (lstat: a symlink is never followed). */
export function backupsFolderState(dbFile: string): BackupsFolderState {
  try {
    return judge(fs.lstatSync(backupsDirFor(dbFile)));
  } catch {
    return "missing";
  }
}

function unsafe(state: BackupsFolderState): AppError {
  return new AppError("backups_folder_unsafe", `The backups folder beside the database is not a private folder of this server (${state}); it was not used. Remove or rename it.`);
}

/**
 * The backups folder, checked: null when it does not exist (nothing to list
 * or read), created 0700 first with `create`. A looser mode on our own
 * folder is tightened. Throws backups_folder_unsafe for a symlink, a file or
 * another user's folder.
 */
export async function backupsFolder(dbFile: string, options: { create?: boolean } = {}): Promise<string | null> {
  const dir = backupsDirFor(dbFile);
  let stats: Stats;
  try {
    stats = await fsp.lstat(dir);
  } catch {
    if (!options.create) return null;
    try {
      // Not recursive: the database's folder exists, and an EEXIST here means
      // something appeared in between, which is judged like any other.
      await fsp.mkdir(dir, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    stats = await fsp.lstat(dir);
  }
  const state = judge(stats);
  if (state !== "ok") throw unsafe(state);
  // mkdir's mode is filtered by the umask; an older version may have left it looser.
  if (isLooserThanPrivate(stats.mode)) await fsp.chmod(dir, PRIVATE_DIR_MODE);
  return dir;
}
