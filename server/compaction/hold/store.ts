// The data access of task holds: one row per task an administrator keeps
// out of Messages compaction (table task_holds). Asynchronous on both
// engines (ARCHITECTURE.md, "The data layer"): SQLite through the writer
// queue and the read connection, PostgreSQL through the node-postgres pool.
//
// A hold write serializes with cleanup batches: on SQLite both take the
// file's write lock (BEGIN IMMEDIATE); on PostgreSQL the hold's transaction
// takes the compaction writer lock every batch takes, so a batch that read
// "not held" commits before the hold does, and every later batch sees it.
//
// Eligibility reads the same table through the compaction store (inside the
// batch's own transaction), and import and export through the workspace
// store: those domains are still synchronous.

/** A hold as stored, with the email of the user who set it when that user still exists. */
export type TaskHoldRow = {
  taskId: string;
  /** RFC 3339 text as set or imported. */
  heldAt: string;
  heldAtMs: number | null;
  /** A user id, or "cli". */
  heldBy: string;
  heldByEmail: string | null;
  /** The per-task restore that set the hold, when one did. */
  restoreId: string | null;
};

export type HoldWrite = { taskId: string; heldAt: string; heldAtMs: number; heldBy: string; restoreId: string | null };

export type HoldStore = {
  /** Runs `fn` in one writer transaction (see the module comment); calls of any store under it join it. */
  writeTransaction<T>(fn: () => Promise<T>): Promise<T>;
  taskExists(taskId: string): Promise<boolean>;
  readHold(taskId: string): Promise<TaskHoldRow | null>;
  /** Puts the task on hold; false (and nothing changed) when it already was. */
  insertHold(hold: HoldWrite): Promise<boolean>;
  /** Takes the task off hold; false when it was not held. */
  deleteHold(taskId: string): Promise<boolean>;
};
