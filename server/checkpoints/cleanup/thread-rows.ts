// Raw row reads of the SqliteSaver tables for retention decisions. Stored
// metadata and checkpoints are inspected with SQLite's JSON functions (no
// JSON.parse of stored records); anything that is not valid `json`-typed
// data answers "unknown", which every caller treats as "cannot prove".
import type Database from "better-sqlite3";
import { TASKS } from "@langchain/langgraph-checkpoint";

export type Sqlite = Pick<Database.Database, "prepare">;

/** Only the root namespace is ours; any other namespace makes a thread unprovable. */
export const ROOT_NS = "";

const META = "CAST(c.metadata AS TEXT)";
const BODY = "CAST(c.checkpoint AS TEXT)";

/** 1 when the checkpoint's only metadata write is a run duration (mirrors isDurationOnly). */
export const DURATION_ONLY_SQL = `CASE WHEN c.type = 'json' AND json_valid(${META}) THEN
  (json_type(${META}, '$.writes.runtime_run_duration') IS NOT NULL
   AND (SELECT count(*) FROM json_each(${META}, '$.writes')) = 1) ELSE 0 END`;

/** The channel_versions map as minified text (key order kept), or NULL when unreadable. */
export const VERSIONS_SQL = `CASE WHEN c.type = 'json' AND json_valid(${BODY}) THEN json_extract(${BODY}, '$.channel_versions') END`;
export const VALUES_SQL = `CASE WHEN c.type = 'json' AND json_valid(${BODY}) THEN json_extract(${BODY}, '$.channel_values') END`;

export type CheckpointNode = {
  id: string;
  parentId: string | null;
  durationOnly: boolean;
  writesCount: number;
  /** Payload bytes: checkpoint + metadata blobs. */
  bytes: number;
  writesBytes: number;
};

export type ThreadGraph = {
  threadId: string;
  nodes: Map<string, CheckpointNode>;
  children: Map<string, string[]>;
  /** The newest checkpoint (what `getTuple` without an id answers). */
  headId: string | null;
  /** Rows outside the root namespace: the thread is left alone. */
  foreignNamespaceRows: number;
};

type NodeRow = { id: string; parentId: string | null; durationOnly: number; writesCount: number; bytes: number; writesBytes: number };

/** Every root-namespace checkpoint of a thread with its writes tally (no blob content is read for sizes). */
export function loadThreadGraph(sqlite: Sqlite, threadId: string): ThreadGraph {
  const rows = sqlite
    .prepare(
      `SELECT c.checkpoint_id AS id, c.parent_checkpoint_id AS parentId, ${DURATION_ONLY_SQL} AS durationOnly,
         coalesce(length(c.checkpoint), 0) + coalesce(length(c.metadata), 0) AS bytes,
         (SELECT count(*) FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id) AS writesCount,
         (SELECT coalesce(sum(length(w.value)), 0) FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id) AS writesBytes
       FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id`,
    )
    .all(threadId, ROOT_NS) as NodeRow[];
  const nodes = new Map<string, CheckpointNode>();
  const children = new Map<string, string[]>();
  for (const r of rows) {
    nodes.set(r.id, { id: r.id, parentId: r.parentId, durationOnly: r.durationOnly === 1, writesCount: r.writesCount, bytes: r.bytes, writesBytes: r.writesBytes });
    if (r.parentId) children.set(r.parentId, [...(children.get(r.parentId) ?? []), r.id]);
  }
  const foreign = sqlite
    .prepare("SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> ?) + (SELECT count(*) FROM writes WHERE thread_id = ? AND checkpoint_ns <> ?) AS n")
    .get(threadId, ROOT_NS, threadId, ROOT_NS) as { n: number };
  return { threadId, nodes, children, headId: rows.length ? rows[rows.length - 1]!.id : null, foreignNamespaceRows: foreign.n };
}

export type PairProof = { versionsEqual: boolean; valuesEqual: boolean; parentHasTaskWrites: boolean };

/** Compares a checkpoint with its parent without decoding either in JS. */
export function proveSameState(sqlite: Sqlite, threadId: string, childId: string, parentId: string): PairProof | null {
  const row = sqlite
    .prepare(
      `SELECT
         (SELECT ${VERSIONS_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childVersions,
         (SELECT ${VERSIONS_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @parent) AS parentVersions,
         (SELECT ${VALUES_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childValues,
         (SELECT ${VALUES_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @parent) AS parentValues,
         EXISTS (SELECT 1 FROM writes w WHERE w.thread_id = @thread AND w.checkpoint_ns = @ns AND w.checkpoint_id = @parent AND w.channel = @tasks) AS parentTasks`,
    )
    .get({ thread: threadId, child: childId, ns: ROOT_NS, parent: parentId, tasks: TASKS }) as {
    childVersions: string | null;
    parentVersions: string | null;
    childValues: string | null;
    parentValues: string | null;
    parentTasks: number;
  };
  if (row.childVersions === null || row.parentVersions === null) return null;
  return {
    versionsEqual: row.childVersions === row.parentVersions,
    valuesEqual: row.childValues !== null && row.childValues === row.parentValues,
    parentHasTaskWrites: row.parentTasks === 1,
  };
}

/** Writes rows whose checkpoint no longer exists (per thread, or everywhere). */
export function countOrphanWrites(sqlite: Sqlite, threadId?: string): number {
  const where = threadId === undefined ? "" : "WHERE w.thread_id = ?";
  const row = sqlite
    .prepare(
      `SELECT count(*) AS n FROM writes w ${where ? `${where} AND` : "WHERE"} NOT EXISTS (
         SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`,
    )
    .get(...(threadId === undefined ? [] : [threadId])) as { n: number };
  return row.n;
}

export type ThreadTotals = { checkpoints: number; writes: number; checkpointBytes: number; writesBytes: number };

/** Rows and payload bytes of one thread in both tables (every namespace, orphans included). */
export function threadTotals(sqlite: Sqlite, threadId: string): ThreadTotals {
  return sqlite
    .prepare(
      `SELECT
         (SELECT count(*) FROM checkpoints WHERE thread_id = @thread) AS checkpoints,
         (SELECT coalesce(sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)), 0) FROM checkpoints WHERE thread_id = @thread) AS checkpointBytes,
         (SELECT count(*) FROM writes WHERE thread_id = @thread) AS writes,
         (SELECT coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = @thread) AS writesBytes`,
    )
    .get({ thread: threadId }) as ThreadTotals;
}
