// Wire types of a task's hold and per-task payload restore
// (GET|PUT /api/v1/tasks/{id}/hold, GET|POST /api/v1/tasks/{id}/payload-restore),
// shared by the route handlers, the operator CLI and the browser fetchers.
// They carry ids, counts, times and backup names: never a payload, a task
// title or a message's content.
import { z } from "zod";
import { BACKUP_NAME_PATTERN } from "@/lib/database/api";

const count = z.number().int().nonnegative();

/** A task's hold: while held, Messages compaction never touches the task (skip reason `held`). */
export const taskHoldSchema = z.object({
  taskId: z.string(),
  held: z.boolean(),
  /** When the hold was set (RFC 3339), null when not held. */
  heldAt: z.string().nullable(),
  /** Who set it: a user id or "cli"; null when not held. */
  heldBy: z.string().nullable(),
  /** That user's email while the account exists. */
  heldByEmail: z.string().nullable(),
  /** The per-task restore that set the hold, when one did. */
  restoreId: z.string().nullable(),
});
export type TaskHold = z.infer<typeof taskHoldSchema>;

export const putTaskHoldBodySchema = z.strictObject({ held: z.boolean() });
export type PutTaskHoldBody = z.infer<typeof putTaskHoldBodySchema>;

/** Why a message of the task can or cannot be restored from the chosen backup. */
export const RESTORE_MESSAGE_STATUSES = ["restorable", "not_in_backup", "changed_since_compaction", "not_compacted"] as const;
export const restoreMessageStatusSchema = z.enum(RESTORE_MESSAGE_STATUSES);
export type RestoreMessageStatus = z.infer<typeof restoreMessageStatusSchema>;

export const backupNameSchema = z.string().regex(BACKUP_NAME_PATTERN, "not a backup name");

/** POST payload-restore: `backup` defaults to the newest backup that can restore the task; `hold` (default true) puts the task on hold. */
export const payloadRestoreBodySchema = z.strictObject({
  backup: backupNameSchema.optional(),
  dryRun: z.boolean().optional(),
  hold: z.boolean().optional(),
});
export type PayloadRestoreBody = z.infer<typeof payloadRestoreBodySchema>;

/** The most messages a report lists one by one (the counts are always complete). */
export const REPORT_MESSAGE_LIMIT = 500;

export const restoreBackupSchema = z.object({
  name: z.string(),
  createdAt: z.string(),
  sizeBytes: count,
  /** SHA-256 of the file as verified for this report (null: not verified yet). */
  sha256: z.string().nullable(),
  /** The compaction preparation's receipt: its hash is also compared with the receipt's. */
  preparation: z.boolean(),
});
export type RestoreBackup = z.infer<typeof restoreBackupSchema>;

/** The dry-run report (200) and the plan a restore works from. */
export const restoreReportSchema = z.object({
  taskId: z.string(),
  backup: restoreBackupSchema,
  counts: z.object({
    restorable: count,
    not_in_backup: count,
    changed_since_compaction: count,
    not_compacted: count,
  }),
  /** Bytes the restorable messages get back (their markers' removed_bytes). */
  restorableBytes: count,
  /** Tool messages of the task, in conversation order, up to REPORT_MESSAGE_LIMIT. */
  messages: z.array(z.object({ id: z.string(), status: restoreMessageStatusSchema, bytes: count })),
  truncated: z.boolean(),
  /** Whether the restore puts the task on hold. */
  hold: z.boolean(),
});
export type RestoreReport = z.infer<typeof restoreReportSchema>;

export const RESTORE_STATES = ["running", "succeeded", "partial", "failed"] as const;

/** One per-task restore as recorded (the 202's operation). */
export const restoreOperationSchema = z.object({
  id: z.string(),
  taskId: z.string(),
  backupName: z.string(),
  backupSha256: z.string().nullable(),
  actor: z.string(),
  hold: z.boolean(),
  state: z.enum(RESTORE_STATES),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  restoredMessages: count,
  restoredBytes: count,
  skipped: z.record(z.string(), count),
  errorCode: z.string().nullable(),
});
export type RestoreOperation = z.infer<typeof restoreOperationSchema>;

export const restoreStartedSchema = z.object({ operationId: z.string() });

/** What is known of a backup's hash and integrity; `failed` ones are left out of the restore list. */
export const backupVerificationStateSchema = z.enum(["verified", "unverified", "failed"]);
export type BackupVerificationState = z.infer<typeof backupVerificationStateSchema>;

/** GET payload-restore: what compaction removed from the task and which backups can bring it back. */
export const restoreSummarySchema = z.object({
  taskId: z.string(),
  compacted: z.object({
    messages: count,
    removedBytes: count,
    /** Earliest and latest removal (the markers' removed_at), null when nothing was removed. */
    firstRemovedAt: z.string().nullable(),
    lastRemovedAt: z.string().nullable(),
  }),
  /**
   * Published backups taken before the task's last compaction that can
   * restore it, newest first; `coversAll` when taken before its first one
   * too. `verification` is what earlier checks found, never a new hash on
   * this read: `verified` (the preparation's recorded verification, or a
   * dry run's or restore's full check of this unchanged file) or
   * `unverified` (the dry run hashes and checks it). `heldMessages`: how
   * many of the task's compacted message ids the backup holds (SQLite; null
   * when not looked up, as for a pg_dump archive). Whether each message is
   * unchanged since is decided by a dry run.
   */
  backups: z.array(
    z.object({
      name: z.string(),
      createdAt: z.string(),
      sizeBytes: count,
      coversAll: z.boolean(),
      preparation: z.boolean(),
      verification: backupVerificationStateSchema,
      heldMessages: count.nullable(),
    }),
  ),
  /** Candidates left out of `backups`: failed their check, or hold none of the task's compacted ids. */
  excluded: z.object({ failed: count, withoutMessages: count }),
  /** The newest restore of this task (running or ended), or null. */
  latest: restoreOperationSchema.nullable(),
});
export type RestoreSummary = z.infer<typeof restoreSummarySchema>;

export function taskHoldUrl(taskId: string): string {
  return `/api/v1/tasks/${encodeURIComponent(taskId)}/hold`;
}

export function payloadRestoreUrl(taskId: string): string {
  return `/api/v1/tasks/${encodeURIComponent(taskId)}/payload-restore`;
}
