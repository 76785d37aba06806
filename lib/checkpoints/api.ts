// Wire types of the checkpoint APIs, shared by the route handlers and the
// browser: threads (/api/v1/threads), run history (/threads/{id}/runs) and
// checkpoint storage maintenance (/system/database/checkpoints). Thread ids
// only, never checkpoint content.
import { z } from "zod";

export const HISTORY_LIMIT_MAX = 100;

export const threadIdParams = z.strictObject({ id: z.string().min(1).max(200) });

export const runRequest = z.strictObject({
  input: z.strictObject({ content: z.string().min(1).max(100_000) }),
  checkpointId: z.string().min(1).max(200).optional(),
});

export const messageIdRequest = z.strictObject({ messageId: z.string().min(1).max(200) });

/** Any non-negative integer; the route clamps it to HISTORY_LIMIT_MAX. */
export const historyRequest = z.strictObject({ limit: z.number().int().min(0).optional() });

export const threadMessage = z.object({ id: z.string(), type: z.enum(["human", "ai", "tool"]), content: z.string() });
export type ThreadMessage = z.infer<typeof threadMessage>;

export const threadValues = z.object({ messages: z.array(threadMessage), title: z.string().nullable() });
export type ThreadValues = z.infer<typeof threadValues>;

export const threadState = z.object({
  threadId: z.string(),
  checkpointId: z.string(),
  values: threadValues,
  next: z.array(z.string()),
});
export type ThreadState = z.infer<typeof threadState>;

export const historyItem = z.object({
  checkpointId: z.string(),
  parentCheckpointId: z.string().nullable(),
  createdAt: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  values: threadValues,
});
export type HistoryItem = z.infer<typeof historyItem>;

export const runResponse = z.object({
  runId: z.string(),
  status: z.enum(["success", "cancelled", "error"]),
  checkpointId: z.string().nullable(),
});
export type RunResponse = z.infer<typeof runResponse>;

export const threadCreated = z.object({ threadId: z.string() });

// GET /api/v1/threads?ids=a,b: each thread's title (its `title` channel), for
// lists that show threads by name. Thread content: members read it, as they
// read GET /{id}/state. An unknown id answers found: false.
export const THREAD_TITLES_MAX = 50;
export const threadTitlesQuery = z.strictObject({
  ids: z
    .string()
    .min(1)
    .transform((text) => [...new Set(text.split(",").filter((id) => id.length > 0))])
    .pipe(z.array(z.string().min(1).max(200)).min(1).max(THREAD_TITLES_MAX)),
});
export const threadTitle = z.strictObject({ threadId: z.string(), found: z.boolean(), title: z.string().nullable() });
export type ThreadTitle = z.infer<typeof threadTitle>;
export const threadTitlesResponse = z.strictObject({ threads: z.array(threadTitle) });
export type ThreadTitlesResponse = z.infer<typeof threadTitlesResponse>;

// GET /api/v1/threads/{id}/runs: the thread's run durations and the message
// ids each run added, answered from the runs recorded beside the checkpoints
// (source "runs"), or, for threads written before that record existed, from
// the run-history cache on the latest checkpoint ("latest"/"cache") or a
// bounded scan ("scan").
export const runHistoryEntry = z.strictObject({ runId: z.string(), durationMs: z.number().nonnegative(), messageIds: z.array(z.string()) });
export const runHistoryResponse = z.strictObject({
  threadId: z.string(),
  source: z.enum(["runs", "cache", "latest", "scan"]),
  runs: z.array(runHistoryEntry),
});
export type RunHistoryResponse = z.infer<typeof runHistoryResponse>;

// Checkpoint storage and its analysis / cleanup operations.
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
  /** partial: a scheduled cleanup stopped for the maintenance window or the guard (it continues later). */
  state: z.enum(["succeeded", "partial", "failed", "cancelled"]),
  errorCode: z.string().nullable(),
  /** Who started it: an administrator (or the CLI), or the daily schedule. Absent in results stored before the schedule existed. */
  trigger: z.enum(["manual", "scheduled"]).optional(),
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
  /**
   * Both tables' rows and payload bytes when the operation started, and
   * whether they differed when it ended: an analysis describes the current
   * state only while the tables still match it (absent on older records).
   */
  tablesAtStart: z.strictObject({ checkpoints: tableUsage, writes: tableUsage }).optional(),
  changedDuringScan: z.boolean().optional(),
});
export type RetentionResult = z.infer<typeof retentionResult>;

/** What the checkpoint queue runs: analysis and cleanup, and thread expiry's steps. */
export const checkpointQueueKind = z.enum(["analysis", "cleanup", "expiry_analysis", "expiry_preparation", "thread_expiry"]);
export type CheckpointQueueKind = z.infer<typeof checkpointQueueKind>;

/**
 * Whether Clean up may start now, and why not: it needs a succeeded analysis
 * of the current state (no cleanup since, the tables as the analysis found
 * them) that found something to reclaim.
 */
export const cleanupReadinessReason = z.enum(["ready", "running", "no_analysis", "analysis_incomplete", "after_cleanup", "changed", "nothing_to_reclaim"]);
export type CleanupReadinessReason = z.infer<typeof cleanupReadinessReason>;
export const cleanupReadiness = z.strictObject({
  reason: cleanupReadinessReason,
  /** The analysis a Clean up would rely on (POST /run {analysisId}); null unless ready. */
  analysisId: z.string().nullable(),
});
export type CleanupReadiness = z.infer<typeof cleanupReadiness>;

export const activeOperation = z.strictObject({
  operationId: z.string(),
  kind: checkpointQueueKind,
  trigger: z.enum(["manual", "scheduled"]).optional(),
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
  cleanup: cleanupReadiness.optional(),
});
export type CheckpointStorageStatus = z.infer<typeof checkpointStorageStatus>;

/** POST /analyze takes an empty body. */
export const startOperationBody = z.strictObject({});

/**
 * POST /run: an empty body runs as before (the CLI, scripts). With
 * `analysisId` the run starts only while that analysis still describes the
 * current state (cleanup.reason "ready" for that id), else 409
 * analysis_outdated: what the administrator confirmed is what is removed.
 */
export const runOperationBody = z.strictObject({ analysisId: z.string().min(1).max(128).optional() });
export type RunOperationBody = z.infer<typeof runOperationBody>;

export const operationAccepted = z.strictObject({ operationId: z.string(), kind: checkpointOperationKind });
export type OperationAccepted = z.infer<typeof operationAccepted>;

export const CHECKPOINT_RETENTION_SETTINGS_KEY = "checkpoint_retention";

// GET /api/v1/threads/{id}/checkpoints: a thread's checkpoints grouped into
// turns with what retention would do to each (members read). Ids, kinds,
// sizes and reasons only, never checkpoint content.
export const checkpointKind = z.enum(["input", "step", "duration", "rewrite", "unknown"]);
export type CheckpointKind = z.infer<typeof checkpointKind>;

/** Where the checkpoint sits: the newest one, on the path to it, or on an abandoned branch. */
export const checkpointPosition = z.enum(["head", "current", "abandoned_tip", "abandoned"]);
export type CheckpointPosition = z.infer<typeof checkpointPosition>;

export const protectionReason = z.enum([
  "explicit_resume_target",
  "branch_ancestor",
  "pending_writes",
  "duration_chain_link",
  "newest",
  "has_children",
  "unknown_namespace",
  "broken_lineage",
  // A run handed it out as its checkpointId and its time to live has not run out.
  "run_handle",
]);
export type ProtectionReasonCode = z.infer<typeof protectionReason>;

/**
 * How retention reclaims it: `next_run` (the trailing duration leaf, removed
 * by admission when the next run starts; Clean up keeps it as the run-history
 * carrier), `branch_tip` (a childless abandoned checkpoint), `abandoned_branch`
 * (goes once the later checkpoints of its branch went), `graft` (a duration
 * link whose children are re-parented onto its identical parent).
 */
export const reclaimForm = z.enum(["next_run", "branch_tip", "abandoned_branch", "graft"]);
export type ReclaimForm = z.infer<typeof reclaimForm>;

export const checkpointVerdict = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("protected"), reasons: z.array(protectionReason).min(1) }),
  z.strictObject({ status: z.literal("reclaimable"), form: reclaimForm }),
]);
export type CheckpointVerdict = z.infer<typeof checkpointVerdict>;

export const threadCheckpoint = z.strictObject({
  checkpointId: z.string(),
  parentCheckpointId: z.string().nullable(),
  kind: checkpointKind,
  step: z.number().int().nullable(),
  position: checkpointPosition,
  bytes: z.number().int().nonnegative(),
  writes: z.number().int().nonnegative(),
  writesBytes: z.number().int().nonnegative(),
  verdict: checkpointVerdict,
  /** Set when a run handed this checkpoint out as its handle: until when retention keeps it (null: no expiry). */
  handle: z
    .strictObject({
      runId: z.string(),
      issuedAtMs: z.number().int(),
      expiresAtMs: z.number().int().nullable(),
      expired: z.boolean(),
    })
    .nullable(),
});
export type ThreadCheckpoint = z.infer<typeof threadCheckpoint>;

export const threadTurn = z.strictObject({
  /** 1-based, in the order the turns were written (abandoned ones included). */
  index: z.number().int().positive(),
  /** `run`: an agent run; `rewrite`: a state written without a run (thread start, branch copy, resume). */
  kind: z.enum(["run", "rewrite"]),
  /** Part of the conversation the thread shows now. */
  current: z.boolean(),
  bytes: z.number().int().nonnegative(),
  /** What Clean up removes of this turn (the trailing duration leaf is not counted: the next run removes it). */
  reclaimableBytes: z.number().int().nonnegative(),
  checkpoints: z.array(threadCheckpoint),
});
export type ThreadTurn = z.infer<typeof threadTurn>;

export const threadCheckpointsResponse = z.strictObject({
  threadId: z.string(),
  checkpoints: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /** What Clean up removes now: the same count the checkpoint analysis gives for this thread. */
  reclaimableCheckpoints: z.number().int().nonnegative(),
  reclaimableBytes: z.number().int().nonnegative(),
  /** The trailing duration leaf: Clean up keeps it (the run history), the next run's admission removes it. */
  nextRunCheckpoints: z.number().int().nonnegative(),
  nextRunBytes: z.number().int().nonnegative(),
  turns: z.array(threadTurn),
});
export type ThreadCheckpointsResponse = z.infer<typeof threadCheckpointsResponse>;
