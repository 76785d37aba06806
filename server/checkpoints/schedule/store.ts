// The data access of scheduled checkpoint maintenance: the two policy
// records (table maintenance_policies) and thread expiry (its candidates,
// tombstones in expired_threads, and the bounded deletion of a thread's
// rows: checkpoints, writes, PostgreSQL's blobs, and our checkpoint_runs).
// Asynchronous on both engines (ARCHITECTURE.md, "The data layer"): SQLite
// through the writer queue and the read connection, PostgreSQL through the
// node-postgres pool, where every writer transaction takes the checkpoints
// domain's writer lock.

export type MaintenancePolicyKind = "checkpoint_cleanup" | "thread_expiry";

export type PolicyRow = { revision: number; record: string; updatedAtMs: number };

/** What expiry judges a thread by, read without decoding a checkpoint. */
export type ThreadActivity = {
  threadId: string;
  /** issued_at_ms of its newest recorded run; null when none was recorded. */
  lastRunAtMs: number | null;
  /** The greatest checkpoint id (LangGraph ids are time-ordered UUIDv6: the newest). */
  newestCheckpointId: string | null;
  /** The tombstone of a thread already expired whose rows are not all gone yet. */
  tombstoned: boolean;
};

export type ThreadSize = { checkpoints: number; writes: number; bytes: number };

export type TombstoneState = "deleting" | "expired";

export type TombstoneRow = ThreadSize & {
  threadId: string;
  state: TombstoneState;
  expiredAtMs: number;
  lastActivityMs: number | null;
  cutoffMs: number;
  operationId: string;
  policyRevision: number;
  finishedAtMs: number | null;
};

export type DeletedRows = { checkpoints: number; writes: number; blobs: number; runs: number };

export type CheckpointScheduleStore = {
  /** One writer transaction (PostgreSQL: under the checkpoints writer lock); calls of any store under it join it. */
  writeTransaction<T>(fn: () => Promise<T>): Promise<T>;

  readPolicy(kind: MaintenancePolicyKind): Promise<PolicyRow | null>;
  /**
   * Compare-and-set: writes when the stored revision is `expectedRevision`
   * (null: no row yet); false, and nothing changed, otherwise.
   */
  writePolicy(kind: MaintenancePolicyKind, write: { expectedRevision: number | null; revision: number; record: string; nowMs: number }): Promise<boolean>;

  /** Threads with checkpoints (or a tombstone still deleting), in id order after `afterThreadId`. */
  listThreadActivity(options: { afterThreadId: string | null; limit: number }): Promise<ThreadActivity[]>;
  /** One thread's activity now (null when it has no checkpoints and no runs). */
  threadActivity(threadId: string): Promise<ThreadActivity | null>;
  /** Rows and payload bytes of one thread (every namespace; PostgreSQL counts its blobs). */
  threadSize(threadId: string): Promise<ThreadSize>;

  /** Writes the tombstone; false when the thread already has one. */
  insertTombstone(row: Omit<TombstoneRow, "finishedAtMs">): Promise<boolean>;
  readTombstone(threadId: string): Promise<TombstoneRow | null>;
  /** Threads whose tombstone says their rows are still being deleted (oldest id first). */
  deletingThreads(limit: number): Promise<string[]>;
  /** Deletes up to `maxRows` of the thread's rows (writes first, then checkpoints, blobs, runs). */
  deleteThreadRows(threadId: string, maxRows: number): Promise<DeletedRows>;
  /** Marks the tombstone expired once no row of the thread is left; false while some remain. */
  finishTombstone(threadId: string, nowMs: number): Promise<boolean>;
  countTombstones(): Promise<number>;
};
