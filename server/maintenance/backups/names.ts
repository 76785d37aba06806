import "server-only";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { AppError } from "@/server/errors";
import { backupsDirFor } from "@/server/db/url";
import { BACKUP_NAME_PATTERN } from "@/lib/database/api";

/**
 * Backup file names are generated here and nowhere else, and every name that
 * arrives from a client must match this exact pattern before it is joined to
 * a directory. That single rule is what refuses `../x`, absolute paths,
 * encoded separators and anything that is not one of our files.
 */
export { BACKUP_NAME_PATTERN };

export const STAGING_PREFIX = ".staging-";

/** e.g. workspace-2026-11-29T22-30-00Z-1a2b3c4d.db (UTC, sorts by time). */
export function generateBackupName(nowMs: number): string {
  const stamp = new Date(nowMs).toISOString().slice(0, 19).replaceAll(":", "-");
  return `workspace-${stamp}Z-${randomBytes(4).toString("hex")}.db`;
}

export function isBackupName(name: unknown): name is string {
  return typeof name === "string" && BACKUP_NAME_PATTERN.test(name);
}

/** The UTC creation time encoded in a generated name, as epoch ms. */
export function backupNameTime(name: string): number {
  const stamp = name.slice("workspace-".length, "workspace-".length + 20);
  const iso = `${stamp.slice(0, 10)}T${stamp.slice(11, 19).replaceAll("-", ":")}Z`;
  return Date.parse(iso);
}

/** Absolute path of a backup by client-supplied name; refuses anything else. */
export function backupPath(dbFile: string, name: unknown): string {
  if (!isBackupName(name)) {
    throw new AppError("invalid_request", "Not a backup name");
  }
  const dir = backupsDirFor(dbFile);
  const full = path.join(dir, name);
  // Belt and braces: the pattern already excludes separators and dots.
  if (path.dirname(full) !== dir) throw new AppError("invalid_request", "Not a backup name");
  return full;
}
