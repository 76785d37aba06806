// Zod shapes of the Messages compaction policy and operation records, shared
// by the server (stored record, API answers) and the client (draft form).
// Every object is strict: an unknown field is a validation error, never
// silently dropped, so a stored record we do not understand fails closed.
import { z } from "zod";
import { parseRfc3339 } from "@/lib/time/rfc3339";

export const AGE_LIMITS = { weeks: { min: 1, max: 520 }, months: { min: 1, max: 120 } } as const;

export const ageUnitSchema = z.enum(["weeks", "months"]);

export const ageSchema = z.discriminatedUnion("unit", [
  z.strictObject({
    value: z.int().min(AGE_LIMITS.weeks.min).max(AGE_LIMITS.weeks.max),
    unit: z.literal("weeks"),
  }),
  z.strictObject({
    value: z.int().min(AGE_LIMITS.months.min).max(AGE_LIMITS.months.max),
    unit: z.literal("months"),
  }),
]);

/** A non-negative safe integer (counts, byte totals, revisions). */
export const countSchema = z.int().min(0);

/** RFC 3339 text; parsed chronologically elsewhere, validated here. */
export const instantSchema = z.string().refine((text) => parseRfc3339(text) !== null, "invalid RFC 3339 timestamp");

export const policySchema = z.strictObject({
  enabled: z.boolean(),
  age: ageSchema,
  revision: countSchema,
});

/** What an administrator edits: the policy without its revision. */
export const policyDraftSchema = z.strictObject({ enabled: z.boolean(), age: ageSchema });

export const operationKindSchema = z.enum(["analysis", "preparation", "cleanup"]);
export const operationStateSchema = z.enum(["queued", "running", "succeeded", "partial", "failed", "cancelled"]);

// Skip reasons and kinds are open string keys (new reasons must not break an
// old record) but bounded in number and length so the record stays small.
const boundedKey = z.string().min(1).max(64);
const MAX_KEYS = 64;

export const skippedCountsSchema = z
  .record(boundedKey, countSchema)
  .refine((value) => Object.keys(value).length <= MAX_KEYS, "too many skip reasons");

export const kindBreakdownSchema = z
  .record(boundedKey, z.strictObject({ messages: countSchema, payloadBytes: countSchema }))
  .refine((value) => Object.keys(value).length <= MAX_KEYS, "too many kinds");

export const operationProgressSchema = z.strictObject({
  processedTasks: countSchema,
  /** Null while the total is unknown; a partial result never claims one. */
  totalTasks: countSchema.nullable(),
  processedMessages: countSchema,
});

/** Progress of a preparation's backup copy by bytes (total null while unknown). */
export const backupBytesSchema = z.strictObject({ doneBytes: countSchema, totalBytes: countSchema.nullable() });

export const operationSchema = z.strictObject({
  id: z.string().min(1).max(128),
  kind: operationKindSchema,
  state: operationStateSchema,
  startedAt: instantSchema.nullable(),
  finishedAt: instantSchema.nullable(),
  /** The one UTC cutoff of the pass (null for preparation). */
  cutoff: instantSchema.nullable(),
  scannedRows: countSchema,
  eligibleTasks: countSchema,
  eligibleMessages: countSchema,
  changedMessages: countSchema,
  payloadBytes: countSchema,
  skipped: skippedCountsSchema,
  stale: z.boolean(),
  /** Analysis: fingerprint of the draft age it was run for. */
  fingerprint: z.string().max(128).optional(),
  progress: operationProgressSchema.optional(),
  /** Preparation: the backup copy's progress by bytes. */
  backupBytes: backupBytesSchema.optional(),
  byKind: kindBreakdownSchema.optional(),
  /** The policy revision the operation ran under (cleanup, preparation). */
  revision: countSchema.optional(),
  errorCode: z.string().max(64).nullable().optional(),
});

export const preparationStateSchema = z.enum(["none", "pending", "running", "ready", "failed"]);
export const preparationChoiceSchema = z.enum(["backup", "skip"]);

export const backupReceiptSchema = z.strictObject({
  name: z.string().min(1).max(255),
  sizeBytes: countSchema,
  completedAt: instantSchema,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const skipReceiptSchema = z.strictObject({ skippedAt: instantSchema });

export const preparationSchema = z
  .strictObject({
    state: preparationStateSchema,
    choice: preparationChoiceSchema.nullable(),
    /** The policy revision this preparation is for. */
    revision: countSchema.nullable(),
    operationId: z.string().min(1).max(128).nullable(),
    receipt: z.union([backupReceiptSchema, skipReceiptSchema]).nullable(),
    errorCode: z.string().max(64).nullable(),
    /**
     * When the backup receipt was fully verified for this approval (before its
     * first mutation); later passes trust it while the file is still there.
     */
    verifiedAt: instantSchema.nullable().optional(),
    /** When the running backup started (status shows it as the active operation). */
    startedAt: instantSchema.nullable().optional(),
    /** The running backup's progress by bytes (saved at most about once a second). */
    backupBytes: backupBytesSchema.nullable().optional(),
  })
  // "ready" arms deletion, so it must carry the receipt of its choice: a
  // record that says ready without one is malformed and fails closed.
  .refine(
    (p) =>
      p.state !== "ready" ||
      (p.choice === "backup" && p.receipt !== null && "sha256" in p.receipt) ||
      (p.choice === "skip" && p.receipt !== null && "skippedAt" in p.receipt),
    "a ready preparation needs the receipt of its choice",
  );

export type CompactionAge = z.infer<typeof ageSchema>;
export type AgeUnit = z.infer<typeof ageUnitSchema>;
export type CompactionPolicy = z.infer<typeof policySchema>;
export type PolicyDraft = z.infer<typeof policyDraftSchema>;
export type OperationKind = z.infer<typeof operationKindSchema>;
export type OperationState = z.infer<typeof operationStateSchema>;
export type CompactionOperation = z.infer<typeof operationSchema>;
export type OperationProgress = z.infer<typeof operationProgressSchema>;
export type Preparation = z.infer<typeof preparationSchema>;
export type BackupBytes = z.infer<typeof backupBytesSchema>;
export type BackupReceipt = z.infer<typeof backupReceiptSchema>;
export type SkipReceipt = z.infer<typeof skipReceiptSchema>;
