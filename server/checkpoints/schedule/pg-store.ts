// The PostgreSQL implementation of the CheckpointScheduleStore, on the
// node-postgres pool. PostgresSaver's tables (checkpoints, checkpoint_blobs,
// checkpoint_writes) exist from the runtime's start; a thread's blobs are
// keyed by thread, namespace, channel and version, so they go with the
// thread. Writer transactions take the checkpoints domain's writer lock.
import "server-only";
import type { PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import type { CheckpointScheduleStore, DeletedRows, ThreadActivity, ThreadSize, TombstoneRow } from "./store";

const TOMBSTONE_COLUMNS = `thread_id as "threadId", state, expired_at_ms as "expiredAtMs", last_activity_ms as "lastActivityMs", cutoff_ms as "cutoffMs",
  operation_id as "operationId", policy_revision as "policyRevision", checkpoints, writes, bytes, finished_at_ms as "finishedAtMs"`;

const ACTIVITY = `(select max(issued_at_ms) from checkpoint_runs where thread_id = $1) as "lastRunAtMs",
  (select max(checkpoint_id) from checkpoints where thread_id = $1) as "newestCheckpointId",
  exists (select 1 from expired_threads where thread_id = $1) as tombstoned`;

export const PG_SCHEDULE_SQL = {
  tables: `select count(*)::int as n from pg_tables where schemaname = current_schema() and tablename in ('checkpoints', 'checkpoint_writes', 'checkpoint_blobs')`,
  readPolicy: `select revision, record, updated_at_ms as "updatedAtMs" from maintenance_policies where kind = $1`,
  insertPolicy: `insert into maintenance_policies (kind, revision, record, updated_at_ms) values ($1, $2, $3, $4) on conflict (kind) do nothing`,
  updatePolicy: `update maintenance_policies set revision = $1, record = $2, updated_at_ms = $3 where kind = $4 and revision = $5`,
  threadPage: `select distinct thread_id as "threadId" from checkpoints where thread_id > $1 order by thread_id limit $2`,
  deletingPage: `select thread_id as "threadId" from expired_threads where state = 'deleting' and thread_id > $1 order by thread_id limit $2`,
  activity: `select ${ACTIVITY}`,
  size: `select (select count(*) from checkpoints where thread_id = $1)::bigint as checkpoints,
      (select count(*) from checkpoint_writes where thread_id = $1)::bigint as writes,
      ((select coalesce(sum(coalesce(pg_column_size(checkpoint), 0) + coalesce(pg_column_size(metadata), 0)), 0) from checkpoints where thread_id = $1)
        + (select coalesce(sum(coalesce(octet_length(blob), 0)), 0) from checkpoint_blobs where thread_id = $1)
        + (select coalesce(sum(coalesce(octet_length(blob), 0)), 0) from checkpoint_writes where thread_id = $1))::bigint as bytes`,
  insertTombstone: `insert into expired_threads (thread_id, state, expired_at_ms, last_activity_ms, cutoff_ms, operation_id, policy_revision, checkpoints, writes, bytes)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (thread_id) do nothing`,
  readTombstone: `select ${TOMBSTONE_COLUMNS} from expired_threads where thread_id = $1`,
  deleting: `select thread_id as "threadId" from expired_threads where state = 'deleting' order by thread_id limit $1`,
  deleteWrites: `delete from checkpoint_writes where ctid in (select ctid from checkpoint_writes where thread_id = $1 limit $2)`,
  deleteCheckpoints: `delete from checkpoints where ctid in (select ctid from checkpoints where thread_id = $1 limit $2)`,
  deleteBlobs: `delete from checkpoint_blobs where ctid in (select ctid from checkpoint_blobs where thread_id = $1 limit $2)`,
  deleteRuns: `delete from checkpoint_runs where ctid in (select ctid from checkpoint_runs where thread_id = $1 limit $2)`,
  // Every retention deletion bumps the thread's epoch in its own transaction (cleanup/epoch.ts).
  bumpEpoch: `insert into checkpoint_epochs (thread_id, epoch) values ($1, 1) on conflict (thread_id) do update set epoch = checkpoint_epochs.epoch + 1`,
  anyLeft: `select (exists (select 1 from checkpoints where thread_id = $1) or exists (select 1 from checkpoint_writes where thread_id = $1)
      or exists (select 1 from checkpoint_blobs where thread_id = $1) or exists (select 1 from checkpoint_runs where thread_id = $1)) as "left"`,
  finish: `update expired_threads set state = 'expired', finished_at_ms = $1 where thread_id = $2 and state = 'deleting'`,
  countTombstones: `select count(*)::bigint as n from expired_threads`,
} as const;

export function createPgScheduleStore(db: PgDb): CheckpointScheduleStore {
  // Nested under another store's transaction (an audit entry's), the savepoint takes the lock too.
  const inWriter = <T>(fn: () => Promise<T>): Promise<T> => writerTransaction(db, "checkpoints", fn);
  let tablesSeen = false;
  const tablesExist = async () => {
    if (!tablesSeen) tablesSeen = (await db.one<{ n: number }>(PG_SCHEDULE_SQL.tables))?.n === 3;
    return tablesSeen;
  };
  const activity = async (threadId: string): Promise<Omit<ThreadActivity, "threadId">> => {
    const row = await db.one<Omit<ThreadActivity, "threadId">>(PG_SCHEDULE_SQL.activity, [threadId]);
    return { lastRunAtMs: row?.lastRunAtMs ?? null, newestCheckpointId: row?.newestCheckpointId ?? null, tombstoned: row?.tombstoned === true };
  };
  return {
    writeTransaction: inWriter,

    readPolicy: (kind) => db.one(PG_SCHEDULE_SQL.readPolicy, [kind]),

    writePolicy: (kind, write) =>
      inWriter(async () => {
        if (write.expectedRevision === null) return (await db.run(PG_SCHEDULE_SQL.insertPolicy, [kind, write.revision, write.record, write.nowMs])) === 1;
        return (await db.run(PG_SCHEDULE_SQL.updatePolicy, [write.revision, write.record, write.nowMs, kind, write.expectedRevision])) === 1;
      }),

    listThreadActivity: async ({ afterThreadId, limit }) => {
      if (!(await tablesExist())) return [];
      const after = afterThreadId ?? "";
      // One snapshot: the page and each thread's facts see one state.
      return db.transaction(
        async () => {
          const ids = new Set<string>();
          for (const row of await db.query<{ threadId: string }>(PG_SCHEDULE_SQL.threadPage, [after, limit])) ids.add(row.threadId);
          for (const row of await db.query<{ threadId: string }>(PG_SCHEDULE_SQL.deletingPage, [after, limit])) ids.add(row.threadId);
          const page = [...ids].sort().slice(0, limit);
          const out: ThreadActivity[] = [];
          for (const threadId of page) out.push({ threadId, ...(await activity(threadId)) });
          return out;
        },
        { snapshot: true },
      );
    },

    threadActivity: async (threadId) => {
      if (!(await tablesExist())) return null;
      const facts = await activity(threadId);
      return facts.lastRunAtMs === null && facts.newestCheckpointId === null && !facts.tombstoned ? null : { threadId, ...facts };
    },

    threadSize: async (threadId) => {
      if (!(await tablesExist())) return { checkpoints: 0, writes: 0, bytes: 0 };
      return (await db.one<ThreadSize>(PG_SCHEDULE_SQL.size, [threadId]))!;
    },

    insertTombstone: (row) =>
      inWriter(
        async () =>
          (await db.run(PG_SCHEDULE_SQL.insertTombstone, [
            row.threadId,
            row.state,
            row.expiredAtMs,
            row.lastActivityMs,
            row.cutoffMs,
            row.operationId,
            row.policyRevision,
            row.checkpoints,
            row.writes,
            row.bytes,
          ])) === 1,
      ),

    readTombstone: (threadId) => db.one<TombstoneRow>(PG_SCHEDULE_SQL.readTombstone, [threadId]),

    deletingThreads: async (limit) => (await db.query<{ threadId: string }>(PG_SCHEDULE_SQL.deleting, [limit])).map((row) => row.threadId),

    deleteThreadRows: (threadId, maxRows) =>
      inWriter(async () => {
        const deleted: DeletedRows = { checkpoints: 0, writes: 0, blobs: 0, runs: 0 };
        let budget = maxRows;
        if (await tablesExist()) {
          deleted.writes = await db.run(PG_SCHEDULE_SQL.deleteWrites, [threadId, budget]);
          budget -= deleted.writes;
          if (budget > 0) {
            deleted.checkpoints = await db.run(PG_SCHEDULE_SQL.deleteCheckpoints, [threadId, budget]);
            budget -= deleted.checkpoints;
          }
          if (budget > 0) {
            deleted.blobs = await db.run(PG_SCHEDULE_SQL.deleteBlobs, [threadId, budget]);
            budget -= deleted.blobs;
          }
        }
        if (budget > 0) deleted.runs = await db.run(PG_SCHEDULE_SQL.deleteRuns, [threadId, budget]);
        if (deleted.checkpoints + deleted.writes + deleted.blobs > 0) await db.run(PG_SCHEDULE_SQL.bumpEpoch, [threadId]);
        return deleted;
      }),

    finishTombstone: (threadId, nowMs) =>
      inWriter(async () => {
        if ((await db.one<{ left: boolean }>(PG_SCHEDULE_SQL.anyLeft, [threadId]))?.left) return false;
        await db.run(PG_SCHEDULE_SQL.finish, [nowMs, threadId]);
        return true;
      }),

    countTombstones: async () => (await db.one<{ n: number }>(PG_SCHEDULE_SQL.countTombstones))?.n ?? 0,
  };
}
