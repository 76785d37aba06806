import "server-only";
import fs from "node:fs";
import path from "node:path";
import { tightenPath } from "@/server/db/file-modes";
import { backupsDirFor } from "@/server/db/url";
import { backupsFolderState } from "./folder";

/**
 * Backups are full copies of the database: the backups folder (0700), every
 * file in it (0600) and staging folders (0700) are tightened when an older
 * version or another tool left them readable. Returns what changed, relative
 * to the database's folder.
 */
export function tightenBackupModes(options: { dbFile: string }): string[] {
  // Never through a symlink or in another user's folder (startup reports those).
  if (backupsFolderState(options.dbFile) !== "ok") return [];
  const dir = backupsDirFor(options.dbFile);
  const tightened: string[] = [];
  if (tightenPath(dir)) tightened.push("backups");
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return tightened;
  }
  for (const entry of entries) {
    if (tightenPath(path.join(dir, entry))) tightened.push(`backups/${entry}`);
  }
  return tightened;
}
