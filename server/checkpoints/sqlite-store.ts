// CheckpointStore on the SqliteSaver tables (`checkpoints`, `writes`) in the
// workspace file and our `settings` row. SqliteSaver keeps each checkpoint's
// channel values inside its row as a JSON blob, so proofs and sizes are
// answered with SQLite's JSON functions and length() on the blob columns
// (length() reads the record header, not the blob): nothing is decoded in JS,
// and anything that is not valid `json`-typed data answers "unknown".
// Statements come from the one per-connection cache. Every verb runs its
// statements in one synchronous step: reads on the connection `reading()`
// names at that moment (the writer inside a transaction of the database, the
// read connection otherwise), writes through the writer queue (at once inside
// a transaction), so a write never joins another request's open transaction.
import { TASKS } from "@langchain/langgraph-checkpoint";
import { CHECKPOINT_RETENTION_SETTINGS_KEY, type TableUsage, type ThreadUsage } from "@/lib/checkpoints/api";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { AdmissionHead, CheckpointOrigin, CheckpointRow, CheckpointStore, HandleRecord, PairProof, PathBreak, RunRecord, StoredWrite, ThreadTotals } from "./store";
import {
  ADMISSION_DELETE_SQL,
  ADMISSION_HEAD_SQL,
  ADMISSION_PARENT_SQL,
  ADMISSION_PROBE_SQL,
  ADMISSION_VERSIONS_SQL,
  BUMP_EPOCH_SQL,
  COMPARE_SQL,
  HANDLE_RECORD_SQL,
  HAS_RUNS_SQL,
  IMPORT_RUN_SQL,
  LIST_RUNS_SQL,
  ORIGINS_SQL,
  PATH_END_SQL,
  RECORD_RUN_SQL,
  ROOT_NS,
  THREAD_HANDLES_SQL,
  THREAD_ROWS_SQL,
} from "./sqlite-store-sql";
import { admissionHeadFrom, type AdmissionHeadRow, runRecordFrom, type RunRow } from "./run-rows";
type NodeRow = Omit<CheckpointRow, "durationOnly"> & { durationOnly: number };
type CompareRow = {
  childVersions: string | null;
  parentVersions: string | null;
  childValues: string | null;
  parentValues: string | null;
  parentTasks: number;
  childDelta: number | null;
  childLean: number | null;
};

/**
 * A lean duration leaf (durations.ts) stores no channel values and reads as
 * its parent (the saver fills them in): equal when every value it does hold
 * equals the parent's ("any" channel may be missing). A delta-mode leaf
 * written before lean leaves left out only the delta channels' values: equal
 * when the only ones it lacks are delta channels (a read walks on to the
 * parent's seed either way).
 */
function leanCopyOf(childValues: string, parentValues: string, deltaChannels: readonly string[] | "any"): boolean {
  const child = JSON.parse(childValues) as Record<string, unknown>;
  const parent = JSON.parse(parentValues) as Record<string, unknown>;
  for (const key of Object.keys(parent)) if (!(key in child) && deltaChannels !== "any" && !deltaChannels.includes(key)) return false;
  const trimmed = Object.fromEntries(Object.keys(parent).filter((k) => k in child).map((k) => [k, parent[k]]));
  return Object.keys(child).length === Object.keys(trimmed).length && JSON.stringify(child) === JSON.stringify(trimmed);
}

const ZERO_USAGE: TableUsage = { rows: 0, bytes: 0 };

export function createSqliteCheckpointStore(db: SqliteDb): CheckpointStore {
  const get = <T>(sql: string, ...args: unknown[]) => statement(db.reading(), sql).get(...args) as T;
  const all = <T>(sql: string, ...args: unknown[]) => statement(db.reading(), sql).all(...args) as T[];
  // Only inside db.write / db.transaction below (the writer's turn).
  const run = (sql: string, ...args: unknown[]) => statement(db.writer, sql).run(...args).changes;
  // Before the saver's first write its tables do not exist yet (no statement on them can be prepared).
  const tablesExist = () => get<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')").n === 2;

  return {
    transaction: (fn) => db.transaction(fn),

    orderedWrites: async ({ threadId, namespace, checkpointId }) =>
      all<{ task_id: string; channel: string; type: string | null; value: string | null }>(
        `SELECT task_id, channel, type, CAST(value AS TEXT) AS value FROM writes
         WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
         ORDER BY task_id, idx`,
        threadId,
        namespace,
        checkpointId,
      ).map((r): StoredWrite => ({ taskId: r.task_id, channel: r.channel, type: r.type, value: r.value })),

    latestMetadata: async (threadId) => {
      const row = get<{ type: string | null; metadata: Uint8Array | string } | undefined>(
        `SELECT type, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
        threadId,
      );
      return row ? { type: row.type, value: row.metadata } : undefined;
    },

    parentLinks: async (threadId) => {
      if (!tablesExist()) return new Map();
      const rows = all<{ id: string; parentId: string | null }>(
        "SELECT checkpoint_id AS id, parent_checkpoint_id AS parentId FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?",
        threadId,
        ROOT_NS,
      );
      return new Map(rows.map((r) => [r.id, r.parentId]));
    },

    pathBreak: async (threadId, fromId): Promise<PathBreak | null> => {
      if (!tablesExist()) return null;
      const end = get<{ id: string; parentId: string | null; depth: number; cap: number } | undefined>(PATH_END_SQL, {
        thread: threadId,
        ns: ROOT_NS,
        from: fromId ?? null,
      });
      if (!end || end.parentId === null) return null;
      if (end.depth >= end.cap) return { kind: "cycle", checkpointId: end.id };
      return { kind: "missing_parent", checkpointId: end.id, parentId: end.parentId };
    },

    listThreadCheckpoints: async (threadId) =>
      all<NodeRow>(THREAD_ROWS_SQL, threadId, ROOT_NS).map((r) => ({ ...r, durationOnly: r.durationOnly === 1 })),

    listCheckpointOrigins: async (threadId) =>
      all<CheckpointOrigin>(ORIGINS_SQL, threadId, ROOT_NS).map((r) => ({
        id: r.id,
        source: typeof r.source === "string" ? r.source : null,
        step: typeof r.step === "number" ? r.step : null,
      })),

    foreignNamespaceRows: async (threadId) =>
      get<{ n: number }>(
        "SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> ?) + (SELECT count(*) FROM writes WHERE thread_id = ? AND checkpoint_ns <> ?) AS n",
        threadId,
        ROOT_NS,
        threadId,
        ROOT_NS,
      ).n,

    admissionHead: async (threadId): Promise<AdmissionHead | undefined> => {
      const row = get<AdmissionHeadRow | undefined>(ADMISSION_HEAD_SQL, threadId, ROOT_NS);
      return row ? admissionHeadFrom(row) : undefined;
    },

    checkpointExists: async (threadId, checkpointId) => get<{ ok: number } | undefined>(ADMISSION_PARENT_SQL, threadId, ROOT_NS, checkpointId) !== undefined,

    channelVersions: async (threadId, checkpointId) => get<{ versions: string | null } | undefined>(ADMISSION_VERSIONS_SQL, threadId, ROOT_NS, checkpointId),

    hasPendingWrites: async (threadId, checkpointId) => get<{ busy: number }>(ADMISSION_PROBE_SQL, threadId, ROOT_NS, checkpointId).busy === 1,

    compareWithParent: async (threadId, childId, parentId, deltaChannels = []): Promise<PairProof | null> => {
      const row = get<CompareRow>(COMPARE_SQL, { thread: threadId, child: childId, ns: ROOT_NS, parent: parentId, tasks: TASKS });
      if (row.childVersions === null || row.parentVersions === null) return null;
      const { childValues, parentValues } = row;
      const versionsEqual = childValues !== null && row.childVersions === row.parentVersions;
      return {
        versionsEqual: row.childVersions === row.parentVersions,
        valuesEqual:
          childValues !== null &&
          (childValues === parentValues ||
            (versionsEqual && parentValues !== null && row.childLean === 1 && leanCopyOf(childValues, parentValues, "any")) ||
            (versionsEqual && row.childDelta === 1 && parentValues !== null && deltaChannels.length > 0 && leanCopyOf(childValues, parentValues, deltaChannels))),
        parentHasTaskWrites: row.parentTasks === 1,
      };
    },

    deleteTrailingLeaf: (threadId, leafId) =>
      db.transaction(() => {
        const gone = run(ADMISSION_DELETE_SQL, { thread: threadId, ns: ROOT_NS, leaf: leafId }) === 1;
        if (gone) run(BUMP_EPOCH_SQL, threadId);
        return gone;
      }),

    deleteCheckpoints: (threadId, ids) =>
      db.transaction(() => {
        const out = { checkpoints: 0, writes: 0 };
        for (const id of ids) {
          out.writes += run("DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?", threadId, ROOT_NS, id);
          out.checkpoints += run("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?", threadId, ROOT_NS, id);
        }
        if (out.checkpoints > 0) run(BUMP_EPOCH_SQL, threadId);
        return out;
      }),

    retentionEpoch: async (threadId) => get<{ epoch: number } | undefined>("SELECT epoch FROM checkpoint_epochs WHERE thread_id = ?", threadId)?.epoch ?? 0,

    reparentChildren: (threadId, fromId, toId) =>
      db.write(() => {
        run("UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_ns = ? AND parent_checkpoint_id = ?", toId, threadId, ROOT_NS, fromId);
      }),

    recordRun: (r) =>
      db.write(() => {
        run(RECORD_RUN_SQL, { ...r, messageIds: JSON.stringify(r.messageIds) });
      }),

    importLegacyRuns: (threadId, runs, atMs) =>
      db.transaction(() => {
        for (const r of runs) run(IMPORT_RUN_SQL, { threadId, runId: r.runId, durationMs: r.durationMs, messageIds: JSON.stringify(r.messageIds), atMs });
      }),

    hasRuns: async (threadId) => get<{ any: number }>(HAS_RUNS_SQL, threadId).any === 1,

    listRuns: async (threadId): Promise<RunRecord[]> => all<RunRow>(LIST_RUNS_SQL, threadId).map(runRecordFrom),

    threadHandles: async (threadId) => all<HandleRecord>(THREAD_HANDLES_SQL, threadId).map((h) => ({ ...h, issuedAtMs: Number(h.issuedAtMs) })),

    handleRecord: async (threadId, checkpointId) => {
      const h = get<HandleRecord | undefined>(HANDLE_RECORD_SQL, threadId, checkpointId);
      return h ? { ...h, issuedAtMs: Number(h.issuedAtMs) } : undefined;
    },

    listThreadIds: async () => (tablesExist() ? all<{ id: string }>("SELECT DISTINCT thread_id AS id FROM checkpoints ORDER BY thread_id").map((r) => r.id) : []),

    threadTotals: async (threadId) =>
      get<ThreadTotals>(
        `SELECT
           (SELECT count(*) FROM checkpoints WHERE thread_id = @thread) AS checkpoints,
           (SELECT coalesce(sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)), 0) FROM checkpoints WHERE thread_id = @thread) AS checkpointBytes,
           (SELECT count(*) FROM writes WHERE thread_id = @thread) AS writes,
           (SELECT coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = @thread) AS writesBytes`,
        { thread: threadId },
      ),

    countOrphanWrites: async (threadId) => {
      const orphan = `NOT EXISTS (
         SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`;
      return threadId === undefined
        ? get<{ n: number }>(`SELECT count(*) AS n FROM writes w WHERE ${orphan}`).n
        : get<{ n: number }>(`SELECT count(*) AS n FROM writes w WHERE w.thread_id = ? AND ${orphan}`, threadId).n;
    },

    tableUsage: async () => {
      if (!tablesExist()) return { checkpoints: ZERO_USAGE, writes: ZERO_USAGE };
      return {
        checkpoints: get<TableUsage>("SELECT count(*) AS rows, coalesce(sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)), 0) AS bytes FROM checkpoints"),
        writes: get<TableUsage>("SELECT count(*) AS rows, coalesce(sum(coalesce(length(value), 0)), 0) AS bytes FROM writes"),
      };
    },

    largestThreads: async (limit) => {
      if (!tablesExist()) return [];
      return all<ThreadUsage>(
        `WITH c AS (SELECT thread_id, count(*) AS n, sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)) AS b FROM checkpoints GROUP BY thread_id),
              w AS (SELECT thread_id, count(*) AS n, sum(coalesce(length(value), 0)) AS b FROM writes GROUP BY thread_id)
         SELECT c.thread_id AS threadId, c.n AS checkpoints, coalesce(w.n, 0) AS writes, c.b + coalesce(w.b, 0) AS bytes
         FROM c LEFT JOIN w ON w.thread_id = c.thread_id ORDER BY bytes DESC, threadId LIMIT ?`,
        limit,
      );
    },

    readResultRecord: async () => get<{ value: string } | undefined>("SELECT value FROM settings WHERE key = ?", CHECKPOINT_RETENTION_SETTINGS_KEY)?.value,

    writeResultRecord: (value, nowMs) =>
      db.write(() => {
        run(
        "INSERT INTO settings (key, value, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
        CHECKPOINT_RETENTION_SETTINGS_KEY,
        value,
        nowMs,
      );
      }),
  };
}
