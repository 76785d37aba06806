import "server-only";
import type { BackupReceipt, BackupVerification } from "@/lib/database/api";
import type { Stats } from "node:fs";
import fsp from "node:fs/promises";
import { backupsDirFor } from "@/server/db/url";
import type { MaintenanceStore } from "../store";
import { sha256File, type Hasher } from "./hash";
import { backupsFolderState } from "./folder";
import { backupPath, isBackupName } from "./names";
import path from "node:path";

export type { BackupReceipt };

export type VerifyFailureCode = "backup_missing" | "backup_changed" | "backup_corrupt" | "backup_symlink";
export type VerifyResult = { ok: true } | { ok: false; code: VerifyFailureCode };

type FileIdentity = { sizeBytes: number; mtimeMs: number; ctimeMs: number; ino: number };

function identityOf(stats: Stats): FileIdentity {
  return { sizeBytes: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.sizeBytes === b.sizeBytes && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

type Probe = { ok: true; identity: FileIdentity; file: string } | { ok: false; code: VerifyFailureCode };

/** lstat only: never follows a symlink planted in place of the backup. */
async function probe(dbFile: string, receipt: BackupReceipt): Promise<Probe> {
  if (!isBackupName(receipt.name)) return { ok: false, code: "backup_missing" };
  // A receipt's file reached through a symlinked or foreign folder is not ours.
  const folder = backupsFolderState(dbFile);
  if (folder === "missing") return { ok: false, code: "backup_missing" };
  if (folder !== "ok") return { ok: false, code: "backup_symlink" };
  const file = path.join(backupsDirFor(dbFile), receipt.name);
  let stats: Stats;
  try {
    stats = await fsp.lstat(file);
  } catch {
    return { ok: false, code: "backup_missing" };
  }
  if (stats.isSymbolicLink()) return { ok: false, code: "backup_symlink" };
  if (!stats.isFile() || stats.size !== receipt.sizeBytes) return { ok: false, code: "backup_changed" };
  return { ok: true, identity: identityOf(stats), file };
}

/** The cheap check alone (lstat, no hash): is the receipt's file still there, unchanged in size? */
export async function probeReceipt(options: { dbFile: string; receipt: BackupReceipt }): Promise<VerifyResult> {
  const found = await probe(options.dbFile, options.receipt);
  return found.ok ? { ok: true } : found;
}

type VerifyOptions = { store: MaintenanceStore; dbFile: string; receipt: BackupReceipt; hasher?: Hasher };

async function verifyFully(options: VerifyOptions): Promise<{ result: VerifyResult; identity?: FileIdentity }> {
  const { dbFile, receipt } = options;
  const first = await probe(dbFile, receipt);
  if (!first.ok) return { result: first };
  if ((await (options.hasher ?? sha256File)(first.file)) !== receipt.sha256) return { result: { ok: false, code: "backup_changed" } };
  if (!(await options.store.verifyFile(first.file))) return { result: { ok: false, code: "backup_corrupt" } };
  // The file could have been swapped while we hashed it: the identity seen
  // before and after must agree for the hash to describe this file.
  const second = await probe(dbFile, receipt);
  if (!second.ok) return { result: second };
  if (!sameIdentity(first.identity, second.identity)) return { result: { ok: false, code: "backup_changed" } };
  return { result: { ok: true }, identity: second.identity };
}

/** Full verification: exists, regular file, size, SHA-256 and integrity_check. */
export async function verifyReceipt(options: VerifyOptions): Promise<VerifyResult> {
  return (await verifyFully(options)).result;
}

/** Remembers the last full verification so probes can skip the re-hash; its owner's (each worker makes one), never shared by default. */
export type VerificationCache = { entry: (FileIdentity & { name: string; sha256: string }) | null };

export function createVerificationCache(): VerificationCache {
  return { entry: null };
}

/**
 * Verification for repeated read-only probes (TPR-PREP-05): when the file's
 * identity (size, mtime, ctime, inode) is unchanged since the last full
 * verification of the same receipt, only the cheap lstat runs. ctime cannot
 * be set back by a user, so an in-place edit with a restored mtime is still
 * noticed. Any difference falls back to the full verification.
 */
export async function verifyReceiptCached(options: VerifyOptions & { cache: VerificationCache }): Promise<VerifyResult> {
  const { receipt, cache } = options;
  const current = await probe(options.dbFile, receipt);
  if (!current.ok) {
    cache.entry = null;
    return current;
  }
  const hit = cache.entry;
  if (hit && hit.name === receipt.name && hit.sha256 === receipt.sha256 && sameIdentity(hit, current.identity)) {
    return { ok: true };
  }
  const { result, identity } = await verifyFully(options);
  cache.entry = result.ok && identity ? { ...identity, name: receipt.name, sha256: receipt.sha256 } : null;
  return result;
}

/**
 * Checks one backup by name (operator CLI): regular file (lstat, never a
 * symlink), SHA-256, integrity_check, and, when `receipt` is the receipt
 * naming this file, that size and hash match it. The name must already be
 * a backup name (backupPath refuses anything else with invalid_request).
 */
export async function verifyBackupByName(options: { store: MaintenanceStore; dbFile: string; name: string; receipt: BackupReceipt | null; hasher?: Hasher }): Promise<BackupVerification> {
  const { name } = options;
  const file = backupPath(options.dbFile, name);
  const receiptFor = options.receipt?.name === name ? options.receipt : null;
  const failed = (code: VerifyFailureCode, sizeBytes: number | null = null, sha256: string | null = null): BackupVerification => ({
    name,
    ok: false,
    code,
    sizeBytes,
    sha256,
    receipt: receiptFor ? "mismatched" : "none",
  });
  let stats: Stats;
  try {
    stats = await fsp.lstat(file);
  } catch {
    return failed("backup_missing");
  }
  if (stats.isSymbolicLink()) return failed("backup_symlink");
  if (!stats.isFile()) return failed("backup_missing");
  const sha256 = await (options.hasher ?? sha256File)(file);
  if (receiptFor && (receiptFor.sizeBytes !== stats.size || receiptFor.sha256 !== sha256)) return failed("backup_changed", stats.size, sha256);
  if (!(await options.store.verifyFile(file))) return failed("backup_corrupt", stats.size, sha256);
  return { name, ok: true, code: null, sizeBytes: stats.size, sha256, receipt: receiptFor ? "matched" : "none" };
}
