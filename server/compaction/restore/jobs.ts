// The per-task restores running in this process (a field of the runtime):
// each holds the maintenance guard from its start until it ends, so a
// cleanup batch, a backup, a full restore or a VACUUM never runs beside it,
// on this process or another (the guard's lock file / advisory lock). The
// runtime's stop() asks each to stop at its next batch and waits for it.
import "server-only";
import { createBackupCheckCache, type BackupCheckCache } from "./backups";
import { RESTORE_BATCH } from "./run-restore";

export type RunningRestore = { taskId: string; stop(): void; done: Promise<void> };

export type RestoreBatchLimits = { rows: number; bytes: number };

export type PayloadRestoreJobs = {
  /** Rows and backup bytes per writer transaction (RESTORE_BATCH unless a test sets smaller ones). */
  readonly batch: RestoreBatchLimits;
  /** Full backup checks remembered by file identity (a multi-GB backup is hashed once while unchanged). */
  readonly checks: BackupCheckCache;
  readonly running: Map<string, RunningRestore>;
  /** Stops every running restore at its next batch and waits for them. */
  stopAll(): Promise<void>;
};

export function createPayloadRestoreJobs(options: { batch?: RestoreBatchLimits } = {}): PayloadRestoreJobs {
  const running = new Map<string, RunningRestore>();
  return {
    batch: options.batch ?? RESTORE_BATCH,
    checks: createBackupCheckCache(),
    running,
    async stopAll() {
      const all = [...running.values()];
      for (const job of all) job.stop();
      await Promise.allSettled(all.map((job) => job.done));
    },
  };
}
