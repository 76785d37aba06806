// Wire types of the Database page API (/api/v1/system/database/{stats,vacuum,backups}),
// shared by the server verbs and the browser fetchers.
import { z } from "zod";

const count = z.number().int().nonnegative();

export const tableStatsSchema = z.object({
  name: z.string(),
  rows: count,
  tableBytes: count,
  indexBytes: count,
  totalBytes: count,
  /** How tableBytes was obtained: walking the b-tree, as the remainder of used pages, or PostgreSQL's catalog. */
  bytesMethod: z.enum(["dbstat", "remainder", "catalog"]),
  /** PostgreSQL: row versions VACUUM can reclaim (pg_stat_user_tables.n_dead_tup); absent on SQLite. */
  deadTuples: count.optional(),
});
export type TableStats = z.infer<typeof tableStatsSchema>;

export const databaseStatsSchema = z.object({
  fileBytes: count,
  walBytes: count,
  pageSize: count,
  pageCount: count,
  freePages: count,
  freeBytes: count,
  /** Null when the SQLite build has no dbstat virtual table. */
  tables: z.array(tableStatsSchema).nullable(),
});
export type DatabaseStats = z.infer<typeof databaseStatsSchema>;

/**
 * A maintenance lock whose file names another host (`<db>.maintenance.lock`):
 * no process here can tell whether its holder still runs, so it holds
 * maintenance until an admin clears it. `host` is null when the file's value
 * is not a host name (shown as unreadable; the lock's id confirms instead),
 * `kind` when it names no known operation.
 */
export const unverifiableLockSchema = z.object({
  id: z.string(),
  kind: z.string().nullable(),
  host: z.string().nullable(),
  acquiredAt: z.string().nullable(),
});
export type UnverifiableLockView = z.infer<typeof unverifiableLockSchema>;

/** What the admin types to clear that lock: the host it names, or the lock's id when the host is unreadable. */
export function unverifiableLockConfirmation(lock: UnverifiableLockView): string {
  return lock.host ?? lock.id;
}

/** POST maintenance-lock/clear: the lock's id as shown, and its confirmation typed. */
export const clearLockBodySchema = z.strictObject({ id: z.string().max(100), confirm: z.string().max(253) });
export type ClearLockBody = z.infer<typeof clearLockBodySchema>;
export const clearedLockSchema = z.object({ cleared: z.string() });
export type ClearedLock = z.infer<typeof clearedLockSchema>;

/**
 * GET stats. maintenanceBusy names the operation holding the maintenance
 * guard; unverifiableLock is that holder when it is another host's lock.
 */
export const databaseStatsResponseSchema = z.union([
  databaseStatsSchema.extend({
    capability: z.literal("supported"),
    maintenanceBusy: z.string().nullable(),
    unverifiableLock: unverifiableLockSchema.nullable().default(null),
  }),
  z.object({ capability: z.literal("unsupported") }),
]);
export type DatabaseStatsResponse = z.infer<typeof databaseStatsResponseSchema>;

export const vacuumResultSchema = z.object({ beforeBytes: count, afterBytes: count, freedBytes: count, durationMs: z.number().nonnegative() });
export type VacuumResult = z.infer<typeof vacuumResultSchema>;

export const backupReceiptSchema = z.object({ name: z.string(), sizeBytes: count, completedAt: z.string(), sha256: z.string() });
export type BackupReceipt = z.infer<typeof backupReceiptSchema>;

export const backupEntrySchema = z.object({
  name: z.string(),
  sizeBytes: count,
  createdAt: z.string(),
  /**
   * The receipt of the current compaction preparation: rotation keeps it and
   * deleting it needs its name typed (`?confirm=`); compaction then needs a
   * new preparation.
   */
  pinned: z.boolean().optional(),
});
export type BackupEntry = z.infer<typeof backupEntrySchema>;

/** GET backups: newest first; `keep` is the retention rule (newest N kept). */
export const backupsResponseSchema = z.object({ capability: z.enum(["supported", "unsupported"]), backups: z.array(backupEntrySchema), keep: count });
export type BackupsResponse = z.infer<typeof backupsResponseSchema>;

export const restoreResultSchema = z.object({ restored: z.string(), restartRequired: z.literal(true) });
export type RestoreResult = z.infer<typeof restoreResultSchema>;

/** DELETE backups/{name}. */
export const deletedBackupSchema = z.object({ deleted: z.string() });
export type DeletedBackup = z.infer<typeof deletedBackupSchema>;

/** POST backups/{name}/restore: the typed confirmation must equal the backup name. */
export const restoreBodySchema = z.strictObject({ confirm: z.string().max(200) });
export type RestoreBody = z.infer<typeof restoreBodySchema>;

/** POST vacuum and POST backups take an empty JSON object (or no body). */
export const emptyBodySchema = z.strictObject({});

export const BACKUP_NAME_PATTERN = /^workspace-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-[0-9a-f]{8}\.db$/;

/**
 * The `{name}` of the backup routes: any string the audit trail can record
 * (its detail's backupName holds 200 characters), checked against the
 * pattern by the verbs. A longer one is a client's mistake: 400, not 500.
 */
export const backupNameParamsSchema = z.strictObject({ name: z.string().max(200) });

export function databaseBackupUrl(name: string): string {
  return `/api/v1/system/database/backups/${encodeURIComponent(name)}`;
}

/**
 * A backup checked by name (operator CLI `backup verify NAME`): the file is a
 * regular file, passes the integrity check, and matches the compaction
 * preparation receipt when it is that backup. `code` says why not.
 */
export const backupVerificationSchema = z.strictObject({
  name: z.string(),
  ok: z.boolean(),
  code: z.enum(["backup_missing", "backup_changed", "backup_corrupt", "backup_symlink"]).nullable(),
  sizeBytes: count.nullable(),
  sha256: z.string().nullable(),
  /** Whether the name is the preparation receipt's, and if so whether size and hash matched it. */
  receipt: z.enum(["matched", "mismatched", "none"]),
});
export type BackupVerification = z.infer<typeof backupVerificationSchema>;
