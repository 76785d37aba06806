// The SQLite implementation of the CheckpointScheduleStore, on the
// asynchronous database (writer queue + read connection). SqliteSaver creates
// its tables on first use, so every statement on them first asks whether
// they exist (a fresh database has no thread to expire).
import "server-only";
import type { Sqlite } from "@/server/db/client";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { CheckpointScheduleStore, DeletedRows, ThreadActivity, ThreadSize, TombstoneRow } from "./store";

const TOMBSTONE_COLUMNS = `thread_id AS threadId, state, expired_at_ms AS expiredAtMs, last_activity_ms AS lastActivityMs, cutoff_ms AS cutoffMs,
  operation_id AS operationId, policy_revision AS policyRevision, checkpoints, writes, bytes, finished_at_ms AS finishedAtMs`;

export const SCHEDULE_SQL = {
  tables: `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')`,
  readPolicy: `SELECT revision, record, updated_at_ms AS updatedAtMs FROM maintenance_policies WHERE kind = ?`,
  insertPolicy: `INSERT INTO maintenance_policies (kind, revision, record, updated_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT (kind) DO NOTHING`,
  updatePolicy: `UPDATE maintenance_policies SET revision = ?, record = ?, updated_at_ms = ? WHERE kind = ? AND revision = ?`,
  // A keyset page of thread ids over the saver's primary key (thread_id first).
  threadPage: `SELECT DISTINCT thread_id AS threadId FROM checkpoints WHERE thread_id > ? ORDER BY thread_id LIMIT ?`,
  deletingPage: `SELECT thread_id AS threadId FROM expired_threads WHERE state = 'deleting' AND thread_id > ? ORDER BY thread_id LIMIT ?`,
  activity: `SELECT
      (SELECT max(issued_at_ms) FROM checkpoint_runs WHERE thread_id = @thread) AS lastRunAtMs,
      (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = @thread) AS newestCheckpointId,
      EXISTS (SELECT 1 FROM expired_threads WHERE thread_id = @thread) AS tombstoned`,
  activityNoTables: `SELECT
      (SELECT max(issued_at_ms) FROM checkpoint_runs WHERE thread_id = @thread) AS lastRunAtMs,
      NULL AS newestCheckpointId,
      EXISTS (SELECT 1 FROM expired_threads WHERE thread_id = @thread) AS tombstoned`,
  size: `SELECT
      (SELECT count(*) FROM checkpoints WHERE thread_id = @thread) AS checkpoints,
      (SELECT count(*) FROM writes WHERE thread_id = @thread) AS writes,
      (SELECT coalesce(sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)), 0) FROM checkpoints WHERE thread_id = @thread)
        + (SELECT coalesce(sum(coalesce(length(value), 0)), 0) FROM writes WHERE thread_id = @thread) AS bytes`,
  insertTombstone: `INSERT INTO expired_threads (thread_id, state, expired_at_ms, last_activity_ms, cutoff_ms, operation_id, policy_revision, checkpoints, writes, bytes)
    VALUES (@threadId, @state, @expiredAtMs, @lastActivityMs, @cutoffMs, @operationId, @policyRevision, @checkpoints, @writes, @bytes) ON CONFLICT (thread_id) DO NOTHING`,
  readTombstone: `SELECT ${TOMBSTONE_COLUMNS} FROM expired_threads WHERE thread_id = ?`,
  deleting: `SELECT thread_id AS threadId FROM expired_threads WHERE state = 'deleting' ORDER BY thread_id LIMIT ?`,
  deleteWrites: `DELETE FROM writes WHERE rowid IN (SELECT rowid FROM writes WHERE thread_id = ? LIMIT ?)`,
  deleteCheckpoints: `DELETE FROM checkpoints WHERE rowid IN (SELECT rowid FROM checkpoints WHERE thread_id = ? LIMIT ?)`,
  deleteRuns: `DELETE FROM checkpoint_runs WHERE rowid IN (SELECT rowid FROM checkpoint_runs WHERE thread_id = ? LIMIT ?)`,
  // Every retention deletion bumps the thread's epoch in its own transaction (cleanup/epoch.ts): a read that met it reads again.
  bumpEpoch: `INSERT INTO checkpoint_epochs (thread_id, epoch) VALUES (?, 1) ON CONFLICT (thread_id) DO UPDATE SET epoch = epoch + 1`,
  anyLeft: `SELECT EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = @thread) OR EXISTS (SELECT 1 FROM writes WHERE thread_id = @thread)
      OR EXISTS (SELECT 1 FROM checkpoint_runs WHERE thread_id = @thread) AS left`,
  anyRunLeft: `SELECT EXISTS (SELECT 1 FROM checkpoint_runs WHERE thread_id = @thread) AS left`,
  finish: `UPDATE expired_threads SET state = 'expired', finished_at_ms = ? WHERE thread_id = ? AND state = 'deleting'`,
  countTombstones: `SELECT count(*) AS n FROM expired_threads`,
} as const;

function tablesExist(sqlite: Sqlite): boolean {
  return (statement(sqlite, SCHEDULE_SQL.tables).get() as { n: number }).n === 2;
}

function activityOf(sqlite: Sqlite, threadId: string): Omit<ThreadActivity, "threadId"> {
  const sql = tablesExist(sqlite) ? SCHEDULE_SQL.activity : SCHEDULE_SQL.activityNoTables;
  const row = statement(sqlite, sql).get({ thread: threadId }) as { lastRunAtMs: number | null; newestCheckpointId: string | null; tombstoned: number };
  return { lastRunAtMs: row.lastRunAtMs, newestCheckpointId: row.newestCheckpointId, tombstoned: row.tombstoned === 1 };
}

export function createSqliteScheduleStore(db: SqliteDb): CheckpointScheduleStore {
  return {
    writeTransaction: (fn) => db.transaction(fn),

    readPolicy: async (kind) => (statement(db.reading(), SCHEDULE_SQL.readPolicy).get(kind) as { revision: number; record: string; updatedAtMs: number } | undefined) ?? null,

    writePolicy: (kind, write) =>
      db.write((writer) => {
        if (write.expectedRevision === null) return statement(writer, SCHEDULE_SQL.insertPolicy).run(kind, write.revision, write.record, write.nowMs).changes === 1;
        return statement(writer, SCHEDULE_SQL.updatePolicy).run(write.revision, write.record, write.nowMs, kind, write.expectedRevision).changes === 1;
      }),

    listThreadActivity: async ({ afterThreadId, limit }) => {
      const reader = db.reading();
      const after = afterThreadId ?? "";
      // One deferred read transaction: the page and each thread's facts see one state.
      return reader.transaction(() => {
        const ids = new Set<string>();
        if (tablesExist(reader)) for (const row of statement(reader, SCHEDULE_SQL.threadPage).all(after, limit) as Array<{ threadId: string }>) ids.add(row.threadId);
        for (const row of statement(reader, SCHEDULE_SQL.deletingPage).all(after, limit) as Array<{ threadId: string }>) ids.add(row.threadId);
        return [...ids]
          .sort()
          .slice(0, limit)
          .map((threadId) => ({ threadId, ...activityOf(reader, threadId) }));
      })();
    },

    threadActivity: async (threadId) => {
      const facts = activityOf(db.reading(), threadId);
      return facts.lastRunAtMs === null && facts.newestCheckpointId === null && !facts.tombstoned ? null : { threadId, ...facts };
    },

    threadSize: async (threadId) => {
      const reader = db.reading();
      if (!tablesExist(reader)) return { checkpoints: 0, writes: 0, bytes: 0 };
      return statement(reader, SCHEDULE_SQL.size).get({ thread: threadId }) as ThreadSize;
    },

    insertTombstone: (row) => db.write((writer) => statement(writer, SCHEDULE_SQL.insertTombstone).run(row).changes === 1),

    readTombstone: async (threadId) => (statement(db.reading(), SCHEDULE_SQL.readTombstone).get(threadId) as TombstoneRow | undefined) ?? null,

    deletingThreads: async (limit) => (statement(db.reading(), SCHEDULE_SQL.deleting).all(limit) as Array<{ threadId: string }>).map((row) => row.threadId),

    deleteThreadRows: (threadId, maxRows) =>
      db.write((writer) => {
        const deleted: DeletedRows = { checkpoints: 0, writes: 0, blobs: 0, runs: 0 };
        let budget = maxRows;
        if (tablesExist(writer)) {
          deleted.writes = statement(writer, SCHEDULE_SQL.deleteWrites).run(threadId, budget).changes;
          budget -= deleted.writes;
          if (budget > 0) {
            deleted.checkpoints = statement(writer, SCHEDULE_SQL.deleteCheckpoints).run(threadId, budget).changes;
            budget -= deleted.checkpoints;
          }
        }
        // The run rows (and the handles they name) go last: while any remain,
        // a crash part-way still leaves the thread's tombstone to finish it.
        if (budget > 0) deleted.runs = statement(writer, SCHEDULE_SQL.deleteRuns).run(threadId, budget).changes;
        if (deleted.checkpoints + deleted.writes > 0) statement(writer, SCHEDULE_SQL.bumpEpoch).run(threadId);
        return deleted;
      }),

    finishTombstone: (threadId, nowMs) =>
      db.write((writer) => {
        const left = tablesExist(writer) ? SCHEDULE_SQL.anyLeft : SCHEDULE_SQL.anyRunLeft;
        if ((statement(writer, left).get({ thread: threadId }) as { left: number }).left === 1) return false;
        statement(writer, SCHEDULE_SQL.finish).run(nowMs, threadId);
        return true;
      }),

    countTombstones: async () => (statement(db.reading(), SCHEDULE_SQL.countTombstones).get() as { n: number }).n,
  };
}
