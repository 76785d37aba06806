// What the per-task restore list says of each candidate backup without
// hashing anything on a page load: whether it is verified, not yet verified
// or failed, from checks already made (TPR-PREP-05's recorded verification
// of the compaction preparation's backup, and the full checks a dry run or
// restore remembered by file identity in the runtime's BackupCheckCache),
// plus an lstat; and, on SQLite, how many of the task's compacted message
// ids the backup holds (primary-key lookups on a read-only connection of its
// own). A 2 GB backup is never read whole here: the full check stays with
// the dry run and the restore (backups.ts).
import "server-only";
import type { Stats } from "node:fs";
import fsp from "node:fs/promises";
import type { BackupVerificationState } from "@/lib/task-compaction/api";
import { openDatabase } from "@/server/db/client";
import { backupPath } from "@/server/maintenance/backups/names";
import { readCompactionRecord } from "../policy/record";
import type { CompactionStore } from "../store";
import { identityOf, sameIdentity, type BackupCheckCache } from "./backups";

/** The preparation's receipt failure codes that are about the backup file itself. */
const FILE_FAILURES = new Set(["backup_missing", "backup_changed", "backup_corrupt", "backup_symlink"]);
const LOOKUP_CHUNK = 500;

type Preparation = { name: string; sha256: string; sizeBytes: number; verified: boolean; failed: boolean };

async function preparationOf(store: CompactionStore): Promise<Preparation | null> {
  const read = await readCompactionRecord(store);
  if (read.state === "malformed") return null;
  const prep = read.record.runtime.preparation;
  const receipt = prep.receipt;
  if (!receipt || !("sha256" in receipt)) return null;
  const failed = prep.state === "failed" && FILE_FAILURES.has(prep.errorCode ?? "");
  return { name: receipt.name, sha256: receipt.sha256, sizeBytes: receipt.sizeBytes, verified: Boolean(prep.verifiedAt) && !failed, failed };
}

/** One backup's state from what is already known (plus one lstat). */
function stateOf(options: { name: string; stats: Stats | null; preparation: Preparation | null; cache: BackupCheckCache }): BackupVerificationState {
  const { name, stats, preparation, cache } = options;
  if (!stats || stats.isSymbolicLink() || !stats.isFile()) return "failed";
  const receipt = preparation?.name === name ? preparation : null;
  if (receipt && (receipt.failed || receipt.sizeBytes !== stats.size)) return "failed";
  const hit = cache.get(name);
  if (hit && sameIdentity(hit.identity, identityOf(stats))) {
    if (hit.sha256 === null || (receipt && receipt.sha256 !== hit.sha256)) return "failed";
    return "verified";
  }
  // Verified before the first removal and still the same size: what every later cleanup pass trusts too.
  return receipt?.verified ? "verified" : "unverified";
}

/** How many of `ids` a SQLite backup holds; null when it cannot be opened or read (its check will say why). */
function countHeldIds(file: string, ids: readonly string[]): number | null {
  let handle: ReturnType<typeof openDatabase> | null = null;
  try {
    handle = openDatabase({ file, readonly: true, migrate: false, cacheKiB: 1024 });
    const { sqlite } = handle;
    sqlite.pragma("query_only = 1");
    let held = 0;
    for (let at = 0; at < ids.length; at += LOOKUP_CHUNK) {
      const chunk = ids.slice(at, at + LOOKUP_CHUNK);
      const row = sqlite.prepare(`select count(*) as n from messages where id in (${chunk.map(() => "?").join(",")})`).get(...chunk) as { n: number };
      held += Number(row.n);
    }
    return held;
  } catch {
    return null;
  } finally {
    if (handle?.sqlite.open) handle.sqlite.close();
  }
}

export type BackupState = { state: BackupVerificationState; heldMessages: number | null };

/**
 * The state of each named backup; `heldMessages` (how many of `ids` it
 * holds) only on SQLite and only for a backup that has not failed: reading
 * a pg_dump archive for it would mean streaming the table.
 */
export async function readBackupStates(options: {
  dbFile: string;
  names: readonly string[];
  engine: "sqlite" | "postgres";
  store: CompactionStore;
  cache: BackupCheckCache;
  ids: readonly string[];
}): Promise<Map<string, BackupState>> {
  const preparation = await preparationOf(options.store);
  const states = new Map<string, BackupState>();
  for (const name of options.names) {
    const file = backupPath(options.dbFile, name);
    const stats = await fsp.lstat(file).catch(() => null);
    const state = stateOf({ name, stats, preparation, cache: options.cache });
    const heldMessages = state !== "failed" && options.engine === "sqlite" ? countHeldIds(file, options.ids) : null;
    states.set(name, { state, heldMessages });
  }
  return states;
}
