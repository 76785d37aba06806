// Every statement we run against the checkpoint saver's tables and our
// checkpoint settings record goes through this interface; the SQLite
// implementation is `sqlite-store.ts`. Verbs speak of checkpoints, writes and
// threads, never of columns: a PostgreSQL implementation (checkpoints,
// checkpoint_blobs, checkpoint_writes) must be able to answer the same calls.
// Only the root checkpoint namespace is ours; verbs address it unless they
// take a namespace.
//
// Every verb returns a Promise (the asynchronous store boundary, #27):
// `transaction(async () => ...)` holds one connection for its whole callback
// (SQLite: the writer queue around BEGIN IMMEDIATE; PostgreSQL: one pooled
// session under the checkpoints writer lock), so the deletion paths' judge
// and delete steps stay one atomic check-then-write across awaits, and nested
// calls of any store join it. Reads outside a transaction see committed rows
// only (SQLite: the read connection; PostgreSQL: any pooled session).
import type { TableUsage, ThreadUsage } from "@/lib/checkpoints/api";

/** A serialized value as the saver's serde stores it. */
export type SerializedValue = { type: string | null; value: Uint8Array | string | null };

export type StoredWrite = SerializedValue & { taskId: string; channel: string };

/** One root-namespace checkpoint as retention sees it (no channel values). */
export type CheckpointRow = {
  id: string;
  parentId: string | null;
  /** Its only metadata write is a run duration (mirrors isDurationOnly). */
  durationOnly: boolean;
  writesCount: number;
  /** Payload bytes of the checkpoint itself (state + metadata). */
  bytes: number;
  writesBytes: number;
};

/**
 * The head as the bounded admission cleanup needs it; JSON texts stay
 * undecoded. A leaf our runs recorded (checkpoint_runs) is answered from that
 * row without reading the checkpoint's metadata or body; any other head
 * (a state checkpoint, or a leaf written before the table existed) from
 * its metadata, the legacy fields.
 */
export type AdmissionHead = {
  id: string;
  parentId: string | null;
  /** The run row that wrote this leaf, when there is one. */
  recorded: { runId: string; parentId: string | null; leafDigest: string | null; parentDigest: string | null } | null;
  durationOnly: boolean;
  /** Legacy: the channel_versions map (or its stamped digest) as text, null when unreadable or recorded. */
  versions: string | null;
  /** Legacy: metadata.run_durations / run_message_ids as JSON text, null when absent. */
  durations: string | null;
  messageIds: string | null;
  /** Legacy: metadata.run_order (run ids, oldest first) as JSON text, null when absent. */
  runOrder: string | null;
};

export type RunStatus = "success" | "error" | "cancelled";

/** One run of a thread as checkpoint_runs keeps it. */
export type RunRecord = {
  threadId: string;
  runId: string;
  status: RunStatus;
  /** Successful runs only. */
  durationMs: number | null;
  messageIds: string[];
  /** The state checkpoint the run handed out as its checkpointId. */
  handleId: string | null;
  /** The run's duration-only leaf and the channel_versions digests of the leaf and its parent (the handle) as written. */
  leafId: string | null;
  leafDigest: string | null;
  handleDigest: string | null;
  issuedAtMs: number;
};

/** A handle a run handed out: the checkpoint, the run, when. */
export type HandleRecord = { checkpointId: string; runId: string; issuedAtMs: number };

/** What a checkpoint's metadata says about how it was written (the thread view). */
export type CheckpointOrigin = {
  id: string;
  /** LangGraph's metadata.source: "input", "loop", "update", "fork"; null when unreadable. */
  source: string | null;
  step: number | null;
};

export type PathBreak = { kind: "missing_parent"; checkpointId: string; parentId: string } | { kind: "cycle"; checkpointId: string };

export type PairProof = { versionsEqual: boolean; valuesEqual: boolean; parentHasTaskWrites: boolean };

export type ThreadTotals = { checkpoints: number; writes: number; checkpointBytes: number; writesBytes: number };

export type Deleted = { checkpoints: number; writes: number };

export type CheckpointStore = {
  /** Runs fn in one writer transaction (taken before the first read); a throw rolls back. */
  transaction<T>(fn: () => Promise<T> | T): Promise<T>;

  /** Pending writes of one checkpoint in (task, index) order. */
  orderedWrites(ref: { threadId: string; namespace: string; checkpointId: string }): Promise<StoredWrite[]>;
  /** Serialized metadata of the thread's newest checkpoint. */
  latestMetadata(threadId: string): Promise<SerializedValue | undefined>;

  /** Parent link of every root-namespace checkpoint of the thread (ids only, nothing decoded). */
  parentLinks(threadId: string): Promise<Map<string, string | null>>;
  /**
   * Where the parent chain from `fromId` (default: the newest checkpoint)
   * breaks: a parent link pointing at a missing checkpoint, or a cycle; null
   * when it reaches a root (or the start does not exist). Reads ids only.
   */
  pathBreak(threadId: string, fromId?: string): Promise<PathBreak | null>;
  /** Every checkpoint of the thread, oldest first. */
  listThreadCheckpoints(threadId: string): Promise<CheckpointRow[]>;
  /** Source and step of every checkpoint of the thread, oldest first (metadata only, never state). */
  listCheckpointOrigins(threadId: string): Promise<CheckpointOrigin[]>;
  /** Checkpoint and writes rows of the thread outside the root namespace. */
  foreignNamespaceRows(threadId: string): Promise<number>;
  /** The newest checkpoint of the thread. */
  admissionHead(threadId: string): Promise<AdmissionHead | undefined>;
  /** Whether the checkpoint exists (its key only: no metadata, no body). */
  checkpointExists(threadId: string, checkpointId: string): Promise<boolean>;
  /** Legacy admission: the checkpoint's channel_versions text (or stamped digest); undefined when the checkpoint is missing. */
  channelVersions(threadId: string, checkpointId: string): Promise<{ versions: string | null } | undefined>;
  hasPendingWrites(threadId: string, checkpointId: string): Promise<boolean>;
  /**
   * Compares child and parent state without decoding them; null when either
   * is unreadable. A delta-stamped child with the parent's channel_versions
   * may leave out the values of `deltaChannels` (a lean duration leaf).
   */
  compareWithParent(threadId: string, childId: string, parentId: string, deltaChannels?: readonly string[]): Promise<PairProof | null>;

  /**
   * Deletes the leaf only while it still has no writes, is still the
   * newest checkpoint and its parent is still there (on PostgreSQL: holds
   * the leaf's channel versions); answers whether it went. A deletion bumps the
   * thread's retention epoch in the same transaction.
   */
  deleteTrailingLeaf(threadId: string, leafId: string): Promise<boolean>;
  /** Deletes checkpoints and their writes together (inside a transaction), bumping the retention epoch when any went. */
  deleteCheckpoints(threadId: string, ids: readonly string[]): Promise<Deleted>;
  /**
   * The thread's retention epoch: how many deletions of its checkpoints have
   * committed, in any process on this database (0 before the first).
   */
  retentionEpoch(threadId: string): Promise<number>;
  /** Re-parents every child of one checkpoint onto another. */
  reparentChildren(threadId: string, fromId: string, toId: string): Promise<void>;

  /** Appends a run (its order follows the thread's last run). */
  recordRun(run: RunRecord): Promise<void>;
  /** Records runs of a leaf written before checkpoint_runs (their maps), oldest first; runs already recorded are kept. */
  importLegacyRuns(threadId: string, runs: ReadonlyArray<{ runId: string; durationMs: number; messageIds: string[] }>, atMs: number): Promise<void>;
  /** Whether the thread has any recorded run. */
  hasRuns(threadId: string): Promise<boolean>;
  /** Every recorded run of the thread, oldest first. */
  listRuns(threadId: string): Promise<RunRecord[]>;
  /** Every handle the thread's runs handed out. */
  threadHandles(threadId: string): Promise<HandleRecord[]>;
  /** The newest issue of a handle for one checkpoint id. */
  handleRecord(threadId: string, checkpointId: string): Promise<HandleRecord | undefined>;

  /** Threads with checkpoints, sorted. */
  listThreadIds(): Promise<string[]>;
  /** Rows and payload bytes of one thread (every namespace, orphans included). */
  threadTotals(threadId: string): Promise<ThreadTotals>;
  /** Writes whose checkpoint no longer exists (one thread, or everywhere). */
  countOrphanWrites(threadId?: string): Promise<number>;
  tableUsage(): Promise<{ checkpoints: TableUsage; writes: TableUsage }>;
  largestThreads(limit: number): Promise<ThreadUsage[]>;

  /** The stored analysis/cleanup result record, as stored. */
  readResultRecord(): Promise<string | undefined>;
  writeResultRecord(value: string, nowMs: number): Promise<void>;
};
