// Backup preparation (TPR-PREP-03..10): snapshot, verify, publish, then
// arm cleanup only if the preparation is still the current one. Identity
// (operation id) and the policy revision are re-checked in the writer
// transaction that stores the receipt, so a cancel, a disable or a newer
// policy that committed meanwhile always wins over a late completion.
import "server-only";
import type { Clock } from "@/server/clock";
import { isAppError } from "@/server/errors";
import { formatUtc } from "@/lib/time/rfc3339";
import type { Logger } from "@/server/log";
import type { MaintenanceGuard } from "@/server/maintenance/guard";
import { createBackup, type BackupProgress } from "@/server/maintenance/backups/create";
import type { MaintenanceStore } from "@/server/maintenance/store";
import { editRecord } from "../policy/operations";
import type { BackupReceipt, CompactionRecord } from "../policy/policy-schema";
import type { CompactionStore } from "../store";

export type PreparationDeps = {
  store: CompactionStore;
  /** Snapshots and verifies the database file for the backup. */
  maintenance: MaintenanceStore;
  dbFile: string;
  clock: Clock;
  guard: MaintenanceGuard;
  log: Logger;
  /** Waits before retrying a guard held by another maintenance operation. */
  wait: (ms: number) => Promise<void>;
  shouldStop: () => boolean;
  /** Aborted on cancel or shutdown; the backup stops at its next step boundary. */
  signal?: AbortSignal;
  createBackupFn?: typeof createBackup;
  /** Called once the preparation is recorded as running (live event). */
  onRunning?: () => void;
  /** The backup copy's progress by bytes (live event); the record keeps a throttled copy. */
  onProgress?: (progress: BackupProgress) => void;
};

const PROGRESS_SAVE_EVERY_MS = 1000;

export type PreparationOutcome = "armed" | "superseded" | "failed" | "stopped";

function isCurrent(record: CompactionRecord, operationId: string, states: Array<CompactionRecord["runtime"]["preparation"]["state"]>): boolean {
  const prep = record.runtime.preparation;
  return (
    prep.operationId === operationId &&
    states.includes(prep.state) &&
    record.policy.enabled &&
    prep.revision === record.policy.revision
  );
}

export async function runPreparation(deps: PreparationDeps, operationId: string): Promise<PreparationOutcome> {
  const { store, clock, log } = deps;
  const started = await editRecord(store, clock.now(), (record) => {
    if (!isCurrent(record, operationId, ["pending"])) return { next: null, result: false };
    record.runtime.preparation = { ...record.runtime.preparation, state: "running", errorCode: null, startedAt: formatUtc(clock.now()), backupBytes: null };
    return { next: record, result: true };
  });
  if (!started) return "superseded";
  deps.onRunning?.();

  // The snapshot owns the maintenance guard for copy and verification, then
  // releases it before any cleanup runs. A held guard means waiting, not failing.
  let lease = await deps.guard.tryAcquire({ owner: `preparation:${operationId}`, kind: "backup" });
  while (!lease) {
    if (deps.shouldStop()) return markFailed(deps, operationId, "preparation_cancelled");
    await deps.wait(1000);
    lease = await deps.guard.tryAcquire({ owner: `preparation:${operationId}`, kind: "backup" });
  }
  let receipt: BackupReceipt;
  const progress = progressRecorder(deps, operationId);
  try {
    receipt = await (deps.createBackupFn ?? createBackup)({
      store: deps.maintenance,
      dbFile: deps.dbFile,
      clock,
      label: "preparation",
      lease,
      guard: deps.guard,
      signal: deps.signal,
      log,
      onProgress: progress.record,
    });
  } catch (error) {
    const code = deps.signal?.aborted ? "preparation_cancelled" : isAppError(error) ? error.code : "backup_failed";
    log.warn({ operationId, code }, "preparation backup failed");
    return markFailed(deps, operationId, code === "maintenance_busy" ? "backup_failed" : code);
  } finally {
    lease.release();
    await progress.settled();
  }

  const armed = await editRecord(store, clock.now(), (record) => {
    if (!isCurrent(record, operationId, ["running"])) return { next: null, result: false };
    record.runtime.preparation = { ...record.runtime.preparation, state: "ready", receipt, errorCode: null };
    // Approval is durable before the first deletion can start.
    record.runtime.approvedRevision = record.policy.revision;
    record.runtime.cursor = null;
    return { next: record, result: true };
  });
  log.info({ operationId, armed, backup: receipt.name, sizeBytes: receipt.sizeBytes }, "preparation finished");
  return armed ? "armed" : "superseded";
}

/** Publishes every report; saves the first, the last and about one a second for status reads. */
function progressRecorder(deps: PreparationDeps, operationId: string): { record: (progress: BackupProgress) => void; settled: () => Promise<void> } {
  let savedAt: number | null = null;
  // The backup reports synchronously; the saves run one after another behind it.
  let saving = Promise.resolve();
  const record = (progress: BackupProgress) => {
    deps.onProgress?.(progress);
    const now = deps.clock.now();
    const finished = progress.totalBytes !== null && progress.doneBytes >= progress.totalBytes;
    if (savedAt !== null && now - savedAt < PROGRESS_SAVE_EVERY_MS && !finished) return;
    savedAt = now;
    const save = () =>
      editRecord(deps.store, now, (stored) => {
        if (!isCurrent(stored, operationId, ["running"])) return { next: null, result: undefined };
        stored.runtime.preparation = { ...stored.runtime.preparation, backupBytes: { ...progress } };
        return { next: stored, result: undefined };
      });
    saving = saving.then(save).catch((error: unknown) => {
      deps.log.warn({ operationId, code: (error as { code?: unknown })?.code ?? null }, "preparation progress not saved");
    });
  };
  return { record, settled: () => saving };
}

async function markFailed(deps: PreparationDeps, operationId: string, errorCode: string): Promise<PreparationOutcome> {
  await editRecord(deps.store, deps.clock.now(), (record) => {
    if (record.runtime.preparation.operationId !== operationId || record.runtime.preparation.state === "failed") {
      return { next: null, result: undefined };
    }
    record.runtime.preparation = { ...record.runtime.preparation, state: "failed", errorCode };
    record.runtime.lastErrorCode = errorCode;
    return { next: record, result: undefined };
  });
  return errorCode === "preparation_cancelled" ? "stopped" : "failed";
}
