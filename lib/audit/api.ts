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
  "checkpoints.cleanup",
  "auth.sign_in",
  "user.created",
] as const;
export const auditKindSchema = z.enum(AUDIT_KINDS);
export type AuditKind = z.infer<typeof auditKindSchema>;

const ageSchema = z.object({ value: z.number().int(), unit: z.string() });
const policyViewSchema = z.object({ enabled: z.boolean(), age: ageSchema, revision: z.number().int() });
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
  result: z.enum(["ok", "failed"]),
  errorCode: z.string().nullable(),
  detail: auditDetailSchema,
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
