// The data access of per-task payload restores: the task's tool rows as
// stored now, the guarded write of a row's backup bytes, and the restore
// records (table payload_restores). Asynchronous on both engines (SQLite:
// the writer queue and the read connection; PostgreSQL: the node-postgres
// pool). A restore batch is one writeTransaction: its rows, the record's
// counts and (first batch) the hold commit together or not at all. On
// PostgreSQL the transaction takes the compaction writer lock first, as
// every cleanup batch does.
import type { StoredEncoding } from "../reducer/reducer";

/** A tool row's header: stored byte length and whether its text names the marker key (its body is not read). */
export type ToolRowHeader = { rowid: number; id: string; type: string; bytes: number; marked: boolean };

/** A row as stored now (metadata null when the stored value is not text). */
export type CurrentRow = { rowid: number; id: string; type: string; metadata: string | null; encoding: StoredEncoding; updatedAt: string | null };

/** Writes `next` when the stored metadata is still exactly `observed` (each in its encoding) and updated_at still `observedUpdatedAt`. */
export type RestoreWrite = {
  rowid: number;
  observed: string;
  observedEncoding: StoredEncoding;
  observedUpdatedAt: string | null;
  next: string;
  nextEncoding: StoredEncoding;
};

export type RestoreRecordState = "running" | "succeeded" | "partial" | "failed";

export type RestoreRecord = {
  id: string;
  taskId: string;
  backupName: string;
  backupSha256: string | null;
  actor: string;
  hold: boolean;
  state: RestoreRecordState;
  startedAtMs: number;
  finishedAtMs: number | null;
  runnerId: string | null;
  restoredMessages: number;
  restoredBytes: number;
  /** JSON object text of counts by reason. */
  skipped: string;
  errorCode: string | null;
};

export type RestoreProgress = { id: string; restoredMessages: number; restoredBytes: number; skipped: string; backupSha256?: string | null };

export type RestoreStore = {
  writeTransaction<T>(fn: () => Promise<T>): Promise<T>;
  taskExists(taskId: string): Promise<boolean>;
  listSessionIds(taskId: string): Promise<string[]>;
  /** A session's tool rows after `afterRowid` (null: from the first), in rowid order. */
  listToolRowHeaders(options: { sessionId: string; afterRowid: number | null; limit: number }): Promise<ToolRowHeader[]>;
  /** Rows by rowid, as stored now (a row deleted meanwhile is absent). */
  readRows(rowids: readonly number[]): Promise<CurrentRow[]>;
  /** The guarded write; false when the row changed (or is gone). Never touches updated_at. */
  restoreRow(write: RestoreWrite): Promise<boolean>;

  insertRecord(record: RestoreRecord): Promise<void>;
  updateProgress(progress: RestoreProgress): Promise<void>;
  finishRecord(options: RestoreProgress & { state: Exclude<RestoreRecordState, "running">; finishedAtMs: number; errorCode: string | null }): Promise<void>;
  readRecord(id: string): Promise<RestoreRecord | null>;
  latestRecord(taskId: string): Promise<RestoreRecord | null>;
  /** Ends every record still `running` (their runner died: the maintenance guard is ours) as failed `interrupted`; returns how many. */
  interruptRunning(options: { finishedAtMs: number }): Promise<number>;
};
