// Checkpoint storage and maintenance API shapes (shared by client and server).
// Thread ids only, never checkpoint content.
import { z } from "zod";

export const tableUsage = z.strictObject({ rows: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() });
export type TableUsage = z.infer<typeof tableUsage>;

export const threadUsage = z.strictObject({
  threadId: z.string(),
  checkpoints: z.number().int().nonnegative(),
  writes: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});
export type ThreadUsage = z.infer<typeof threadUsage>;

export const totals = z.strictObject({
  checkpoints: z.number().int().nonnegative(),
  writes: z.number().int().nonnegative(),
  checkpointBytes: z.number().int().nonnegative(),
  writesBytes: z.number().int().nonnegative(),
});
export type Totals = z.infer<typeof totals>;

export const checkpointOperationKind = z.enum(["analysis", "cleanup"]);
export type CheckpointOperationKind = z.infer<typeof checkpointOperationKind>;

export const threadChange = z.strictObject({ threadId: z.string(), before: totals, after: totals });

/** The latest analysis or cleanup, stored under settings key `checkpoint_retention`. */
export const retentionResult = z.strictObject({
  version: z.literal(1),
  operationId: z.string().min(1),
  kind: checkpointOperationKind,
  state: z.enum(["succeeded", "failed", "cancelled"]),
  errorCode: z.string().nullable(),
  startedAtMs: z.number().int(),
  finishedAtMs: z.number().int(),
  before: totals,
  after: totals,
  threadsScanned: z.number().int().nonnegative(),
  threadsChanged: z.number().int().nonnegative(),
  threadsSkipped: z.number().int().nonnegative(),
  orphanWritesAfter: z.number().int().nonnegative(),
  /** The threads with the most bytes reclaimed (at most 10). */
  topThreads: z.array(threadChange).max(10),
});
export type RetentionResult = z.infer<typeof retentionResult>;

export const activeOperation = z.strictObject({
  operationId: z.string(),
  kind: checkpointOperationKind,
  state: z.enum(["queued", "running"]),
});
export type ActiveOperation = z.infer<typeof activeOperation>;

export const checkpointStorageStatus = z.strictObject({
  supported: z.boolean(),
  mode: z.enum(["full", "delta"]).nullable(),
  snapshotFrequency: z.number().int().positive().nullable(),
  tables: z.strictObject({ checkpoints: tableUsage, writes: tableUsage }).nullable(),
  largestThreads: z.array(threadUsage),
  operation: activeOperation.nullable(),
  lastResult: retentionResult.nullable(),
  /** The stored result failed validation; the next operation replaces it. */
  lastResultMalformed: z.boolean(),
});
export type CheckpointStorageStatus = z.infer<typeof checkpointStorageStatus>;

/** POST /analyze and POST /run take an empty body. */
export const startOperationBody = z.strictObject({});

export const operationAccepted = z.strictObject({ operationId: z.string(), kind: checkpointOperationKind });
export type OperationAccepted = z.infer<typeof operationAccepted>;

export const CHECKPOINT_RETENTION_SETTINGS_KEY = "checkpoint_retention";
