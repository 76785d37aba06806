// Wire types of the audit trail (GET /api/v1/system/audit), shared by the
// server route and the browser fetchers. An entry names who did what, when,
// and how it ended; its detail carries ids, counts and policy values only,
// never payloads, titles or secrets.
import { z } from "zod";

export const AUDIT_KINDS = [
  "policy.changed",
  "preparation.chosen",
  "backup.created",
  "backup.deleted",
  "backup.restored",
  "compaction.run",
  "compaction.cancelled",
  "database.vacuumed",
  "maintenance.lock_cleared",
  "checkpoints.cleanup",
  "checkpoints.schedule_changed",
  "checkpoints.scheduled_cleanup",
  "threads.expiry_changed",
  "threads.expiry_run",
  "threads.expiry_cancelled",
  "threads.expired",
  "auth.sign_in",
  "user.created",
  "user.disabled",
  "user.enabled",
  "user.role_changed",
  "user.password_reset",
  "user.password_changed",
  "user.sessions_ended",
  "task.hold_set",
  "task.hold_released",
  "task.payloads_restored",
] as const;
export const auditKindSchema = z.enum(AUDIT_KINDS);
export type AuditKind = z.infer<typeof auditKindSchema>;

const ageSchema = z.object({ value: z.number().int(), unit: z.string() });
// Automatic checkpoint cleanup has no age: its policy is recorded without one.
const policyViewSchema = z.object({ enabled: z.boolean(), age: ageSchema.optional(), revision: z.number().int() });
export type AuditPolicyView = z.infer<typeof policyViewSchema>;

/** Only these fields ever reach the table; anything else is dropped on write. */
export const auditDetailSchema = z
  .object({
    before: policyViewSchema.nullable(),
    after: policyViewSchema.nullable(),
    revision: z.number().int(),
    choice: z.enum(["backup", "skip"]),
    operationId: z.string().max(100),
    backupName: z.string().max(200),
    freedBytes: z.number().int().nonnegative(),
    userId: z.string().max(100),
    role: z.enum(["admin", "viewer"]),
    previousRole: z.enum(["admin", "viewer"]),
    /** Sessions a change ended (disable, password reset, ending sessions). */
    sessions: z.number().int().nonnegative(),
    /** A keyed hash of the client address (sign-ins), as the log lines show it. */
    client: z.string().max(64),
    /** The task a hold or a per-task restore is about. */
    taskId: z.string().max(200),
    /** Whether a per-task restore put the task on hold. */
    hold: z.boolean(),
    restoredMessages: z.number().int().nonnegative(),
    restoredBytes: z.number().int().nonnegative(),
    /** Ids of the messages restored (the first 100; restoredMessages is the count). */
    messageIds: z.array(z.string().max(200)).max(100),
    /** Messages not restored, by reason (or threads thread expiry kept, by reason). */
    skipped: z.record(z.string().max(40), z.number().int().nonnegative()),
    /** Threads a checkpoint cleanup changed or thread expiry deleted. */
    threads: z.number().int().nonnegative(),
    /** Checkpoint rows removed. */
    checkpoints: z.number().int().nonnegative(),
    /** Whether a run was started by the daily schedule. */
    scheduled: z.boolean(),
    /** The host a cleared maintenance lock named, and the operation it said it held. */
    lockHost: z.string().max(253),
    lockKind: z.string().max(40),
  })
  .partial();
export type AuditDetail = z.infer<typeof auditDetailSchema>;

export const auditEntrySchema = z.object({
  id: z.number().int().positive(),
  at: z.string(),
  /** A user id, "cli" (the command line) or "system" (startup, the worker). */
  actor: z.string(),
  /** The signed-in user's email when the actor is a user that still exists. */
  actorEmail: z.string().nullable(),
  kind: auditKindSchema,
  /** The email of the account an entry is about (detail.userId), when that account still exists. */
  subjectEmail: z.string().nullable().default(null),
  result: z.enum(["ok", "failed"]),
  errorCode: z.string().nullable(),
  detail: auditDetailSchema,
  /** How many events this entry stands for: refused sign-ins are counted per account, client and 15 minutes, not written one by one. */
  count: z.number().int().positive().default(1),
  /** The latest of them when count > 1, else null. */
  lastAt: z.string().nullable().default(null),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** Newest first; `nextCursor` is handed back as `cursor` for the next (older) page. */
export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  nextCursor: z.string().nullable(),
  /** How long entries are kept (AUDIT_RETENTION_DAYS). */
  retentionDays: z.number().int().positive(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;

export const auditQuerySchema = z.strictObject({
  kind: auditKindSchema.optional(),
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;
