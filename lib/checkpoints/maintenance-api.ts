// Wire types of scheduled checkpoint maintenance, shared by the routes, the
// operator CLI and the browser:
// - automatic checkpoint cleanup (/system/database/checkpoints/schedule): an
//   opt-in daily run of the exhaustive retention engine;
// - thread expiry (/system/database/checkpoints/thread-expiry): threads whose
//   last activity is older than a period are deleted whole, after a backup or
//   an explicit skip, like Messages compaction's preparation.
// Request bodies are strict objects: an unknown field is a 400.
import { z } from "zod";
import {
  AGE_LIMITS,
  backupBytesSchema,
  backupReceiptSchema,
  countSchema,
  instantSchema,
  preparationChoiceSchema,
  preparationSchema,
  preparationStateSchema,
  skipReceiptSchema,
} from "@/lib/compaction/policy";
import { maintenanceWindowSchema } from "@/lib/compaction/api";

/** Days up to ten years; weeks and months as Messages compaction offers them. */
export const EXPIRY_AGE_LIMITS = { days: { min: 1, max: 3650 }, weeks: AGE_LIMITS.weeks, months: AGE_LIMITS.months } as const;

export const expiryAgeUnitSchema = z.enum(["days", "weeks", "months"]);
export type ExpiryAgeUnit = z.infer<typeof expiryAgeUnitSchema>;

export const expiryAgeSchema = z.discriminatedUnion("unit", [
  z.strictObject({ value: z.int().min(EXPIRY_AGE_LIMITS.days.min).max(EXPIRY_AGE_LIMITS.days.max), unit: z.literal("days") }),
  z.strictObject({ value: z.int().min(EXPIRY_AGE_LIMITS.weeks.min).max(EXPIRY_AGE_LIMITS.weeks.max), unit: z.literal("weeks") }),
  z.strictObject({ value: z.int().min(EXPIRY_AGE_LIMITS.months.min).max(EXPIRY_AGE_LIMITS.months.max), unit: z.literal("months") }),
]);
export type ExpiryAge = z.infer<typeof expiryAgeSchema>;

export const DEFAULT_EXPIRY_AGE: ExpiryAge = Object.freeze({ value: 6, unit: "months" as const }) as ExpiryAge;

export const cleanupPolicySchema = z.strictObject({ enabled: z.boolean(), revision: countSchema });
export type CleanupPolicy = z.infer<typeof cleanupPolicySchema>;

export const expiryPolicySchema = z.strictObject({ enabled: z.boolean(), age: expiryAgeSchema, revision: countSchema });
export type ExpiryPolicy = z.infer<typeof expiryPolicySchema>;

export const expiryPolicyDraftSchema = z.strictObject({ enabled: z.boolean(), age: expiryAgeSchema });
export type ExpiryPolicyDraft = z.infer<typeof expiryPolicyDraftSchema>;

/** What a scheduled-maintenance operation was: the daily cleanup, or one of thread expiry's steps. */
export const maintenanceOperationKindSchema = z.enum(["checkpoint_cleanup", "expiry_analysis", "expiry_preparation", "thread_expiry"]);
export type MaintenanceOperationKind = z.infer<typeof maintenanceOperationKindSchema>;

export const maintenanceTriggerSchema = z.enum(["manual", "scheduled"]);
export type MaintenanceTrigger = z.infer<typeof maintenanceTriggerSchema>;

export const maintenanceOperationStateSchema = z.enum(["queued", "running", "succeeded", "partial", "failed", "cancelled"]);
export type MaintenanceOperationState = z.infer<typeof maintenanceOperationStateSchema>;

// Skip reasons are open keys, bounded in number and length (the record stays small).
const skippedSchema = z
  .record(z.string().min(1).max(64), countSchema)
  .refine((value) => Object.keys(value).length <= 32, "too many skip reasons");

/**
 * One operation as the records keep it. Counts are of threads and of the
 * rows and bytes they hold: for thread expiry what was (or, for an analysis,
 * would be) deleted; for the daily cleanup what the engine reclaimed.
 */
export const maintenanceOperationSchema = z.strictObject({
  id: z.string().min(1).max(128),
  kind: maintenanceOperationKindSchema,
  trigger: maintenanceTriggerSchema,
  state: maintenanceOperationStateSchema,
  startedAt: instantSchema.nullable(),
  finishedAt: instantSchema.nullable(),
  /** Thread expiry: the one cutoff of the pass (a thread last active before it expires). */
  cutoff: instantSchema.nullable(),
  /** Thread expiry: the period the operation ran for. */
  age: expiryAgeSchema.nullable(),
  /** The policy revision it ran under (null for an analysis of a draft). */
  revision: countSchema.nullable(),
  threadsScanned: countSchema,
  /** Threads expired (or that would be), or threads the cleanup changed. */
  threads: countSchema,
  checkpoints: countSchema,
  writes: countSchema,
  bytes: countSchema,
  skipped: skippedSchema,
  errorCode: z.string().max(64).nullable(),
  /** Preparation: the backup copy's progress by bytes. */
  backupBytes: backupBytesSchema.optional(),
  /** The last thread finished: a continuation (after the window closed, the guard was busy or a restart) starts after it. */
  cursor: z.string().max(400).nullable().optional(),
});
export type MaintenanceOperation = z.infer<typeof maintenanceOperationSchema>;

/** Thread expiry skip reasons: a thread in use is never expired. */
export const EXPIRY_SKIP_REASONS = ["run_in_flight", "recent_activity", "activity_unknown"] as const;
export type ExpirySkipReason = (typeof EXPIRY_SKIP_REASONS)[number];

const preparationView = z.strictObject({
  state: preparationStateSchema,
  choice: preparationChoiceSchema.nullable(),
  receipt: z.union([backupReceiptSchema, skipReceiptSchema]).nullable(),
  errorCode: z.string().nullable(),
  operationId: z.string().nullable(),
  backupBytes: backupBytesSchema.nullable().optional(),
});

const capability = z.enum(["supported", "unsupported"]);
const recordState = z.enum(["ok", "missing", "malformed"]);

/** GET /system/database/checkpoints/schedule (also the answer of PUT). */
export const cleanupScheduleStatusSchema = z.strictObject({
  capability,
  recordState,
  policy: cleanupPolicySchema,
  nextDueAt: z.string().nullable(),
  activeOperation: maintenanceOperationSchema.nullable(),
  latestRun: maintenanceOperationSchema.nullable(),
  lastErrorCode: z.string().nullable(),
  maintenanceWindow: maintenanceWindowSchema.nullable(),
});
export type CleanupScheduleStatus = z.infer<typeof cleanupScheduleStatusSchema>;

/** GET /system/database/checkpoints/thread-expiry (also the answer of PUT and cancel). */
export const expiryStatusSchema = z.strictObject({
  capability,
  recordState,
  policy: expiryPolicySchema,
  preparation: preparationView,
  /** Enabled, prepared and approved for the current revision: passes may delete. */
  armed: z.boolean(),
  latestAnalysis: maintenanceOperationSchema.nullable(),
  latestRun: maintenanceOperationSchema.nullable(),
  activeOperation: maintenanceOperationSchema.nullable(),
  nextDueAt: z.string().nullable(),
  lastErrorCode: z.string().nullable(),
  maintenanceWindow: maintenanceWindowSchema.nullable(),
  /** Threads expired so far (their tombstones). */
  expiredThreads: countSchema,
});
export type ExpiryStatus = z.infer<typeof expiryStatusSchema>;

export const putCleanupScheduleBody = z.strictObject({ policy: z.strictObject({ enabled: z.boolean() }), expectedRevision: countSchema });
export type PutCleanupScheduleBody = z.infer<typeof putCleanupScheduleBody>;

export const putExpiryBody = z.strictObject({
  policy: expiryPolicyDraftSchema,
  expectedRevision: countSchema,
  preparation: preparationChoiceSchema.optional(),
  /** The first pass of an armed save runs now even outside the maintenance window. */
  outsideWindow: z.boolean().optional(),
});
export type PutExpiryBody = z.infer<typeof putExpiryBody>;

export const expiryAnalyzeBody = z.strictObject({ age: expiryAgeSchema });
export const expiryRunBody = z.strictObject({ expectedRevision: countSchema, outsideWindow: z.boolean().optional() });
export const maintenanceCancelBody = z.strictObject({ operationId: z.string().min(1).max(128) });

export const maintenanceAccepted = z.strictObject({ operationId: z.string().min(1), kind: maintenanceOperationKindSchema });
export type MaintenanceAccepted = z.infer<typeof maintenanceAccepted>;

/** What the 410 of an expired thread adds to the error body (never content). */
export const threadExpiredExtra = z.strictObject({ threadId: z.string(), expiredAt: z.string(), lastActivityAt: z.string().nullable() });
export type ThreadExpiredExtra = z.infer<typeof threadExpiredExtra>;
/** The 410 body as a browser reads it (the error object beside the extra fields). */
export const threadExpiredBody = z.object({ expiredAt: z.string(), lastActivityAt: z.string().nullable() });

/** The stored record of the daily cleanup (table maintenance_policies, kind checkpoint_cleanup). */
export const cleanupScheduleRecordSchema = z.strictObject({
  version: z.literal(1),
  policy: cleanupPolicySchema,
  runtime: z.strictObject({
    nextDueAt: instantSchema.nullable(),
    activeOperation: maintenanceOperationSchema.nullable(),
    latestRun: maintenanceOperationSchema.nullable(),
    lastErrorCode: z.string().max(64).nullable(),
  }),
});
export type CleanupScheduleRecord = z.infer<typeof cleanupScheduleRecordSchema>;

/** The stored record of thread expiry (table maintenance_policies, kind thread_expiry). */
export const expiryRecordSchema = z.strictObject({
  version: z.literal(1),
  policy: expiryPolicySchema,
  runtime: z.strictObject({
    /** Compaction's preparation shape: a ready preparation carries its receipt. */
    preparation: preparationSchema,
    /** The revision whose preparation finished; passes need it equal to policy.revision. */
    approvedRevision: countSchema.nullable(),
    nextDueAt: instantSchema.nullable(),
    activeOperation: maintenanceOperationSchema.nullable(),
    latestAnalysis: maintenanceOperationSchema.nullable(),
    latestRun: maintenanceOperationSchema.nullable(),
    lastErrorCode: z.string().max(64).nullable(),
  }),
});
export type ExpiryRecord = z.infer<typeof expiryRecordSchema>;
