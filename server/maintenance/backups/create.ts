import "server-only";
import { randomBytes } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import { systemTimers, type Clock, type Timers } from "@/server/clock";
import { backupsDirFor } from "@/server/db/url";
import { AppError, isAppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { Lease, MaintenanceGuard } from "../guard";
import type { MaintenanceStore } from "../store";
import { pruneBackups, MANUAL_BACKUPS_KEPT } from "./catalog";
import { backupsFolder, backupsFolderState } from "./folder";
import { fsyncDir, fsyncFile, sha256File, type Hasher } from "./hash";
import { generateBackupName, STAGING_PREFIX } from "./names";
import type { BackupReceipt } from "./verify";

export type BackupLabel = "manual" | "preparation";

export type CreateBackupOptions = {
  /** Takes the snapshot and checks it (the engine's side of a backup). */
  store: MaintenanceStore;
  /** The live database file; backups live beside it. */
  dbFile: string;
  clock: Clock;
  label: BackupLabel;
  /** Checked at every step boundary; VACUUM INTO itself cannot be interrupted. */
  signal?: AbortSignal;
  guard: MaintenanceGuard;
  /** A lease the caller already holds (preparation keeps it for verification). */
  lease?: Lease;
  hasher?: Hasher;
  /** How many backups the retention rule keeps after publishing. */
  keep?: number;
  /** Backups rotation must not delete (the compaction preparation receipt). */
  pinned?: readonly string[];
  log: Logger;
  /** Test seam: runs on the staged snapshot before it is verified. */
  afterSnapshot?: (stagingFile: string) => void | Promise<void>;
  /**
   * Progress of the copy by bytes: the staged snapshot's size against the
   * live database's (an estimate: the snapshot is compacted). Called at the
   * start, while the copy grows, and with done = total once it is written.
   */
  onProgress?: (progress: BackupProgress) => void;
  /** Polls the growing copy for onProgress (default: the system timers). */
  timers?: Timers;
};

export type BackupProgress = { doneBytes: number; totalBytes: number | null };

const PROGRESS_POLL_MS = 500;

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await fsp.stat(file)).size;
  } catch {
    return null;
  }
}

/** Reports the staged copy's size until stopped; the snapshot runs on another thread. */
function watchCopy(options: { stagingFile: string; totalBytes: number | null; timers: Timers; report: (p: BackupProgress) => void }): () => void {
  let stopped = false;
  let handle: unknown = null;
  const tick = async () => {
    const size = await sizeOf(options.stagingFile);
    if (stopped) return;
    if (size !== null) options.report({ doneBytes: options.totalBytes === null ? size : Math.min(size, options.totalBytes), totalBytes: options.totalBytes });
    handle = options.timers.setTimeout(() => void tick(), PROGRESS_POLL_MS);
  };
  handle = options.timers.setTimeout(() => void tick(), PROGRESS_POLL_MS);
  return () => {
    stopped = true;
    options.timers.clearTimeout(handle);
  };
}

/**
 * Snapshot -> verify -> publish (TPR-PREP-03). The store takes the snapshot
 * off the request thread without holding the writer (SQLite: VACUUM INTO on
 * a worker thread with its own read-only connection). It is written into a
 * private staging directory (0700) beside the published backups, checked with
 * the store's integrity check (a separate read-only connection), hashed, made
 * 0600, fsynced and then renamed into backups/ in one step. Nothing under the
 * published name exists until every check passed, so a crash or a failure at
 * any step leaves no published file — only a staging directory that
 * sweepStaleStaging removes on the next start.
 */
export async function createBackup(options: CreateBackupOptions): Promise<BackupReceipt> {
  const { dbFile, clock, signal } = options;
  const { log } = options;
  signal?.throwIfAborted();
  const { guard } = options;
  if (options.lease && !options.lease.held()) {
    throw new AppError("maintenance_busy", "The maintenance lease for this backup is no longer held");
  }
  const stagingId = randomBytes(8).toString("hex");
  const ownLease = options.lease ? null : await guard.acquireExclusive({ owner: `backup:${stagingId}`, kind: "backup" });
  const startedMs = clock.now();
  let stagingDir: string | null = null;
  try {
    // Created 0700, or checked: a symlinked or foreign folder is never written to.
    const backupsDir = (await backupsFolder(dbFile, { create: true }))!;
    stagingDir = path.join(backupsDir, `${STAGING_PREFIX}${stagingId}`);
    await fsp.mkdir(stagingDir, { mode: 0o700 });
    await fsp.chmod(stagingDir, 0o700); // mkdir's mode is filtered by the umask
    const name = generateBackupName(clock.now());
    const stagingFile = path.join(stagingDir, name);
    signal?.throwIfAborted();
    const report = options.onProgress;
    if (report) {
      const totalBytes = await sizeOf(dbFile);
      report({ doneBytes: 0, totalBytes });
      const stopWatching = watchCopy({ stagingFile, totalBytes, timers: options.timers ?? systemTimers, report });
      try {
        await options.store.snapshotInto(stagingFile);
      } finally {
        stopWatching();
      }
      const written = (await sizeOf(stagingFile)) ?? 0;
      report({ doneBytes: written, totalBytes: written });
    } else {
      await options.store.snapshotInto(stagingFile);
    }
    signal?.throwIfAborted();
    await options.afterSnapshot?.(stagingFile);
    if (!(await options.store.verifyFile(stagingFile))) {
      throw new AppError("backup_failed", "The snapshot failed its integrity check; nothing was published");
    }
    signal?.throwIfAborted();
    await fsp.chmod(stagingFile, 0o600);
    await fsyncFile(stagingFile);
    const sha256 = await (options.hasher ?? sha256File)(stagingFile);
    const { size } = await fsp.stat(stagingFile);
    signal?.throwIfAborted();
    await fsp.rename(stagingFile, path.join(backupsDir, name));
    await fsyncDir(backupsDir);
    const receipt: BackupReceipt = { name, sizeBytes: size, completedAt: new Date(clock.now()).toISOString(), sha256 };
    // Published: a failure to prune older backups must not turn this into a failure.
    const pruned = await pruneBackups({ dbFile, keep: options.keep ?? MANUAL_BACKUPS_KEPT, protect: name, pinned: options.pinned }).catch((error: unknown) => {
      log.warn({ backup: name, errCode: (error as { code?: unknown }).code }, "pruning old backups failed");
      return [];
    });
    log.info({ backup: name, label: options.label, sizeBytes: size, pruned: pruned.length, durationMs: clock.now() - startedMs }, "backup published");
    return receipt;
  } catch (error) {
    const code = isAppError(error) ? error.code : signal?.aborted ? "cancelled" : "error";
    log.warn({ stagingId, label: options.label, code, errCode: (error as { code?: unknown }).code }, "backup not published");
    if (isAppError(error) || signal?.aborted) throw error;
    throw new AppError("backup_failed", "The backup could not be written; nothing was published");
  } finally {
    if (stagingDir) await fsp.rm(stagingDir, { recursive: true, force: true });
    ownLease?.release();
  }
}

/**
 * Removes staging directories left by a crash mid-backup. Runs on start;
 * skipped while any maintenance operation in this process holds the guard
 * (a backup may run under a preparation's lease, and its staging is live).
 */
export async function sweepStaleStaging(options: { dbFile: string; guard: MaintenanceGuard }): Promise<number> {
  if ((await options.guard.holder()) !== null) return 0;
  // Only our own folder is swept: nothing is removed through a symlink.
  if (backupsFolderState(options.dbFile) !== "ok") return 0;
  const dir = backupsDirFor(options.dbFile);
  let entries: string[];
  try {
    entries = await fsp.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const entry of entries) {
    if (!entry.startsWith(STAGING_PREFIX)) continue;
    await fsp.rm(path.join(dir, entry), { recursive: true, force: true });
    removed += 1;
  }
  if (removed > 0) await fsyncDir(dir);
  return removed;
}
