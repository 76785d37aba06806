import "server-only";
import type { BackupEntry } from "@/lib/database/api";
import { constants, type Stats } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { AppError } from "@/server/errors";
import type { MaintenanceGuard } from "../guard";
import { backupsFolder } from "./folder";
import { fsyncDir } from "./hash";
import { backupNameTime, backupPath, isBackupName } from "./names";

/**
 * Manual-backup retention rule: the newest MANUAL_BACKUPS_KEPT backups are
 * kept and older ones are deleted after each newly published backup. A
 * retention preparation backup is an ordinary entry under the same rule, so
 * it stays listed (and downloadable, restorable) until ten newer backups
 * exist; after that its receipt verifies as backup_missing and preparation
 * has to run again.
 */
export const MANUAL_BACKUPS_KEPT = 10;

export type { BackupEntry };

/** Published backups, newest first. Staging dirs, symlinks and strays are never listed. */
export async function listBackups(options: { dbFile: string }): Promise<BackupEntry[]> {
  // A symlinked or foreign folder is refused (backups_folder_unsafe), never listed.
  const dir = await backupsFolder(options.dbFile);
  if (!dir) return [];
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const entries: BackupEntry[] = [];
  for (const name of names.filter(isBackupName)) {
    let stats: Stats;
    try {
      stats = await fsp.lstat(path.join(dir, name));
    } catch {
      continue; // deleted between readdir and lstat
    }
    if (!stats.isFile()) continue;
    entries.push({ name, sizeBytes: stats.size, createdAt: new Date(backupNameTime(name)).toISOString() });
  }
  // Names embed a UTC timestamp, so the name order is the time order.
  return entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

/**
 * Deletes backups beyond the newest `keep`; `protect` (the one just written)
 * and `pinned` (backups another feature relies on, e.g. the receipt of an
 * approved compaction preparation) are never deleted by rotation.
 */
export async function pruneBackups(options: { dbFile: string; keep: number; protect?: string; pinned?: readonly string[] }): Promise<string[]> {
  const all = await listBackups(options);
  const kept = new Set([options.protect, ...(options.pinned ?? [])]);
  const doomed = all.slice(options.keep).filter((entry) => !kept.has(entry.name));
  if (doomed.length === 0) return [];
  const dir = (await backupsFolder(options.dbFile))!;
  for (const entry of doomed) await fsp.rm(path.join(dir, entry.name), { force: true });
  if (doomed.length > 0) await fsyncDir(dir);
  return doomed.map((entry) => entry.name);
}

async function regularFile(file: string): Promise<Stats> {
  try {
    const stats = await fsp.lstat(file);
    if (stats.isFile()) return stats;
  } catch {
    // fall through: missing
  }
  throw new AppError("not_found", "No such backup");
}

/**
 * Deletes one backup by name; held off while another maintenance operation
 * runs. A pinned backup needs `confirm` to repeat its name: deleting it means
 * the feature that pinned it (compaction) needs a new preparation.
 */
export async function deleteBackup(options: {
  dbFile: string;
  name: unknown;
  guard: MaintenanceGuard;
  pinned?: readonly string[];
  confirm?: string | null;
}): Promise<void> {
  const file = backupPath(options.dbFile, options.name);
  const name = path.basename(file);
  if (options.pinned?.includes(name) && options.confirm !== name) {
    throw new AppError("backup_pinned", "This backup is the receipt of the compaction preparation; type its name to delete it. Compaction will then need a new preparation.");
  }
  await options.guard.withExclusive({ owner: "backup-delete", kind: "backup" }, async () => {
    if (!(await backupsFolder(options.dbFile))) throw new AppError("not_found", "No such backup");
    await regularFile(file);
    await fsp.rm(file);
    await fsyncDir(path.dirname(file));
  });
}

export type BackupStream = { name: string; sizeBytes: number; stream: ReadableStream<Uint8Array> };

/**
 * Opens a backup for download. O_NOFOLLOW makes the open itself refuse a
 * symlink swapped in after the lstat.
 */
export async function openBackupStream(options: { dbFile: string; name: unknown }): Promise<BackupStream> {
  const file = backupPath(options.dbFile, options.name);
  if (!(await backupsFolder(options.dbFile))) throw new AppError("not_found", "No such backup");
  await regularFile(file);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw new AppError("not_found", "No such backup");
  }
  const stats = await handle.stat();
  const nodeStream = handle.createReadStream({ highWaterMark: 1024 * 1024, autoClose: true });
  return {
    name: path.basename(file),
    sizeBytes: stats.size,
    stream: Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>,
  };
}
