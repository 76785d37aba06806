// Every statement we run against the checkpoint saver's tables and our
// checkpoint settings record goes through this interface; the SQLite
// implementation is `sqlite-store.ts`. Verbs speak of checkpoints, writes and
// threads, never of columns: a PostgreSQL implementation (checkpoints,
// checkpoint_blobs, checkpoint_writes) must be able to answer the same calls.
// Only the root checkpoint namespace is ours; verbs address it unless they
// take a namespace.
//
// The interface is synchronous on purpose: the SQLite driver is synchronous, the
// deletion paths judge and delete inside one writer transaction with a
// synchronous callback, and a later PostgreSQL implementation satisfies it
// through a synchronous libpq binding. The LangGraph saver API stays async.
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

/** The head as the bounded admission cleanup needs it; JSON texts stay undecoded. */
export type AdmissionHead = {
  id: string;
  parentId: string | null;
  durationOnly: boolean;
  /** The channel_versions map as canonical text, null when unreadable. */
  versions: string | null;
  /** metadata.run_durations / run_message_ids as JSON text, null when absent. */
  durations: string | null;
  messageIds: string | null;
  /** metadata.run_order (run ids, oldest first) as JSON text, null when absent. */
  runOrder: string | null;
};

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
  transaction<T>(fn: () => T): T;

  /** Pending writes of one checkpoint in (task, index) order. */
  orderedWrites(ref: { threadId: string; namespace: string; checkpointId: string }): StoredWrite[];
  /** Serialized metadata of the thread's newest checkpoint. */
  latestMetadata(threadId: string): SerializedValue | undefined;

  /** Parent link of every root-namespace checkpoint of the thread (ids only, nothing decoded). */
  parentLinks(threadId: string): Map<string, string | null>;
  /**
   * Where the parent chain from `fromId` (default: the newest checkpoint)
   * breaks: a parent link pointing at a missing checkpoint, or a cycle; null
   * when it reaches a root (or the start does not exist). Reads ids only.
   */
  pathBreak(threadId: string, fromId?: string): PathBreak | null;
  /** Every checkpoint of the thread, oldest first. */
  listThreadCheckpoints(threadId: string): CheckpointRow[];
  /** Source and step of every checkpoint of the thread, oldest first (metadata only, never state). */
  listCheckpointOrigins(threadId: string): CheckpointOrigin[];
  /** Checkpoint and writes rows of the thread outside the root namespace. */
  foreignNamespaceRows(threadId: string): number;
  /** The newest checkpoint of the thread. */
  admissionHead(threadId: string): AdmissionHead | undefined;
  /** The checkpoint's channel_versions text; undefined when the checkpoint is missing. */
  channelVersions(threadId: string, checkpointId: string): { versions: string | null } | undefined;
  hasPendingWrites(threadId: string, checkpointId: string): boolean;
  /**
   * Compares child and parent state without decoding them; null when either
   * is unreadable. A delta-stamped child with the parent's channel_versions
   * may leave out the values of `deltaChannels` (a lean duration leaf).
   */
  compareWithParent(threadId: string, childId: string, parentId: string, deltaChannels?: readonly string[]): PairProof | null;

  /**
   * Deletes the leaf only while it still has no writes and is still the
   * newest checkpoint; answers whether it went.
   */
  deleteTrailingLeaf(threadId: string, leafId: string): boolean;
  /** Deletes checkpoints and their writes together (inside a transaction). */
  deleteCheckpoints(threadId: string, ids: readonly string[]): Deleted;
  /** Re-parents every child of one checkpoint onto another. */
  reparentChildren(threadId: string, fromId: string, toId: string): void;

  /** Threads with checkpoints, sorted. */
  listThreadIds(): string[];
  /** Rows and payload bytes of one thread (every namespace, orphans included). */
  threadTotals(threadId: string): ThreadTotals;
  /** Writes whose checkpoint no longer exists (one thread, or everywhere). */
  countOrphanWrites(threadId?: string): number;
  tableUsage(): { checkpoints: TableUsage; writes: TableUsage };
  largestThreads(limit: number): ThreadUsage[];

  /** The stored analysis/cleanup result record, as stored. */
  readResultRecord(): string | undefined;
  writeResultRecord(value: string, nowMs: number): void;
};
