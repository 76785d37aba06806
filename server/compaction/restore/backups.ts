// Which published backups can restore a task's payloads, and the check a
// backup passes before a dry run or a restore reads it: a regular file
// (lstat: never a symlink), its SHA-256 and the engine's integrity check
// (SQLite's integrity_check on a read-only connection, pg_restore --list),
// as for the compaction preparation; the preparation's own backup must also
// match its receipt's hash (and then needs no second integrity check). A
// full check hashes the whole file, so it is remembered by the file's
// identity (size, mtime, ctime, inode): an unchanged file is not hashed
// again, any change is.
import "server-only";
import type { Stats } from "node:fs";
import fsp from "node:fs/promises";
import type { BackupEntry } from "@/lib/database/api";
import { AppError } from "@/server/errors";
import { listBackups } from "@/server/maintenance/backups/catalog";
import { sha256File, type Hasher } from "@/server/maintenance/backups/hash";
import { backupPath } from "@/server/maintenance/backups/names";
import type { MaintenanceStore } from "@/server/maintenance/store";
import { readCompactionRecord } from "../policy/record";
import type { CompactionStore } from "../store";

type Identity = { sizeBytes: number; mtimeMs: number; ctimeMs: number; ino: number };

export type VerifiedBackup = { name: string; file: string; createdAt: string; sizeBytes: number; sha256: string; preparation: boolean; identity: Identity };

/**
 * Full checks remembered by name and identity (one per runtime): the hash
 * of a backup that passed, null for one that failed (the restore list
 * leaves it out; a dry run still checks it again).
 */
export type BackupCheckCache = Map<string, { identity: Identity; sha256: string | null }>;

export function createBackupCheckCache(): BackupCheckCache {
  return new Map();
}

export const identityOf = (stats: Stats): Identity => ({ sizeBytes: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino });
export const sameIdentity = (a: Identity, b: Identity) => a.sizeBytes === b.sizeBytes && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

/** The compaction preparation's backup receipt (name and hash), when there is one. */
export async function preparationReceipt(store: CompactionStore): Promise<{ name: string; sha256: string } | null> {
  const read = await readCompactionRecord(store);
  if (read.state === "malformed") return null;
  const receipt = read.record.runtime.preparation.receipt;
  return receipt && "sha256" in receipt ? { name: receipt.name, sha256: receipt.sha256 } : null;
}

export type RemovalSpan = { firstRemovedMs: number; lastRemovedMs: number };

export type RestoreCandidate = BackupEntry & { coversAll: boolean };

/**
 * Published backups taken before the task's last compaction, newest first
 * (`coversAll`: before its first one too). A backup's time is the one its
 * name records, taken before the snapshot started and floored to the
 * second, so a backup made in the same second as a removal (the
 * preparation backup and the first pass) counts as before it: compaction
 * cannot write while a backup holds the maintenance guard. The list only
 * narrows the choice; whether a row comes back is the proof's (proof.ts).
 */
export async function listRestoreCandidates(options: { dbFile: string; span: RemovalSpan | null }): Promise<RestoreCandidate[]> {
  const { span } = options;
  if (!span) return [];
  const all = await listBackups({ dbFile: options.dbFile });
  return all
    .filter((entry) => Date.parse(entry.createdAt) <= span.lastRemovedMs)
    .map((entry) => ({ ...entry, coversAll: Date.parse(entry.createdAt) <= span.firstRemovedMs }));
}

/** The backup a restore reads: the one named (any published backup), else the newest that covers every removal, else the newest candidate. */
export async function chooseBackup(options: { dbFile: string; span: RemovalSpan | null; name?: string; exclude?: ReadonlySet<string> }): Promise<BackupEntry> {
  if (options.name !== undefined) {
    backupPath(options.dbFile, options.name);
    const entry = (await listBackups({ dbFile: options.dbFile })).find((backup) => backup.name === options.name);
    if (!entry) throw new AppError("not_found", "No such backup");
    return entry;
  }
  const candidates = (await listRestoreCandidates(options)).filter((entry) => !options.exclude?.has(entry.name));
  const chosen = candidates.find((entry) => entry.coversAll) ?? candidates[0];
  if (!chosen) throw new AppError("no_restore_backup", "No published backup was taken before this task's payloads were removed");
  return chosen;
}

async function lstatFile(file: string): Promise<Stats> {
  const stats = await fsp.lstat(file).catch(() => null);
  if (!stats || stats.isSymbolicLink() || !stats.isFile()) throw new AppError("backup_unusable", "The backup is missing or is not a regular file");
  return stats;
}

/** The checks above; AppError backup_unusable when the backup fails one. */
export async function checkBackup(options: {
  entry: BackupEntry;
  dbFile: string;
  store: MaintenanceStore;
  receipt: { name: string; sha256: string } | null;
  cache: BackupCheckCache;
  hasher?: Hasher;
}): Promise<VerifiedBackup> {
  const { entry, cache } = options;
  const file = backupPath(options.dbFile, entry.name);
  const before = identityOf(await lstatFile(file));
  const receipt = options.receipt?.name === entry.name ? options.receipt : null;
  const hit = cache.get(entry.name);
  let sha256: string;
  const failed = (message: string) => {
    cache.set(entry.name, { identity: before, sha256: null });
    return new AppError("backup_unusable", message);
  };
  if (hit && hit.sha256 !== null && sameIdentity(hit.identity, before)) {
    sha256 = hit.sha256;
  } else {
    cache.delete(entry.name);
    sha256 = await (options.hasher ?? sha256File)(file);
    // The preparation's backup passed the integrity check before its receipt
    // hashed it: the same hash is the same bytes, so the check would only
    // repeat itself (minutes on a multi-GB file). Any other backup is checked.
    const provenByReceipt = receipt !== null && receipt.sha256 === sha256;
    if (!provenByReceipt && !(await options.store.verifyFile(file))) throw failed("The backup fails its integrity check");
    // The identity before and after must agree for the hash to describe this file.
    if (!sameIdentity(before, identityOf(await lstatFile(file)))) throw new AppError("backup_unusable", "The backup changed while it was being checked");
    cache.set(entry.name, { identity: before, sha256 });
  }
  if (receipt && receipt.sha256 !== sha256) throw failed("The backup no longer matches its preparation receipt");
  return { name: entry.name, file, createdAt: entry.createdAt, sizeBytes: before.sizeBytes, sha256, preparation: receipt !== null, identity: before };
}

/** After reading: the file must still be the one that was checked. */
export async function assertBackupUnchanged(backup: VerifiedBackup): Promise<void> {
  if (!sameIdentity(backup.identity, identityOf(await lstatFile(backup.file)))) {
    throw new AppError("backup_unusable", "The backup changed while it was being read");
  }
}
