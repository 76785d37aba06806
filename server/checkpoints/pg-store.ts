// CheckpointStore on PostgresSaver's tables (@langchain/langgraph-checkpoint-postgres):
// `checkpoints` (checkpoint and metadata as jsonb), `checkpoint_blobs`
// (channel values by channel and version, shared by every checkpoint whose
// channel_versions names that version) and `checkpoint_writes`, plus our
// `settings` row. The same verbs as sqlite-store.ts; what differs:
// - proofs compare jsonb (key order is normalized, so equal maps are equal
//   text); channel values live in blobs keyed by version, so two checkpoints
//   with equal versions and equal inline values hold equal state;
// - deleting checkpoints also deletes the thread's blobs no surviving
//   checkpoint reaches (a version still named by a survivor stays); a
//   trailing leaf's deletion only the pairs it stranded (usually none);
// - admission judges a recorded leaf from its checkpoint_runs row (as on
//   SQLite), a legacy one from the digest stamped into the jsonb metadata, and
//   deletes the leaf in one statement that also checks it names exactly its
//   parent's versions (so no blob can be stranded and none is touched);
// - sizes are pg_column_size / octet_length (stored bytes).
// Before the saver's setup() its tables do not exist: reads answer empty.
// Statements run on the node-postgres pool (server/db/pg/pg-db.ts): on the
// open transaction's session inside `transaction`, any pooled session
// otherwise; the saver shares the pool (pg-saver.ts).
import { TASKS } from "@langchain/langgraph-checkpoint";
import { CHECKPOINT_RETENTION_SETTINGS_KEY, type TableUsage, type ThreadUsage } from "@/lib/checkpoints/api";
import type { PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import { VERSIONS_DIGEST_KEY } from "./versions-digest";
import type { AdmissionHead, CheckpointOrigin, CheckpointRow, CheckpointStore, HandleRecord, PairProof, PathBreak, RunRecord, StoredWrite, ThreadTotals } from "./store";
import { admissionHeadFrom, type AdmissionHeadRow, runRecordFrom, type RunRow } from "./run-rows";

const ROOT_NS = "";
const ZERO_USAGE: TableUsage = { rows: 0, bytes: 0 };

const WRITES_OF_C = `w.thread_id = c.thread_id and w.checkpoint_ns = c.checkpoint_ns and w.checkpoint_id = c.checkpoint_id`;
const CHECKPOINT_BYTES = `(coalesce(pg_column_size(c.checkpoint), 0) + coalesce(pg_column_size(c.metadata), 0))`;
/** true when the checkpoint's only metadata write is a run duration (mirrors isDurationOnly). */
const DURATION_ONLY = `(jsonb_typeof(c.metadata->'writes') = 'object' and (c.metadata->'writes') ? 'runtime_run_duration'
  and (select count(*) from jsonb_object_keys(c.metadata->'writes')) = 1)`;
const VERSIONS = `(c.checkpoint->'channel_versions')::text`;

const THREAD_ROWS_SQL = `select c.checkpoint_id as id, c.parent_checkpoint_id as "parentId", coalesce(${DURATION_ONLY}, false) as "durationOnly",
    ${CHECKPOINT_BYTES} as bytes,
    (select count(*) from checkpoint_writes w where ${WRITES_OF_C}) as "writesCount",
    (select coalesce(sum(octet_length(w.blob)), 0)::bigint from checkpoint_writes w where ${WRITES_OF_C}) as "writesBytes"
  from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 order by c.checkpoint_id`;

// Admission cleanup reads only the (small) metadata of checkpoints our saver
// stamped with a channel_versions digest; an unstamped row (written before
// the digest existed, or by another writer) falls back to its versions map.
// A digest never equals a map's text, so a mixed pair counts as different
// and the leaf stays (as on SQLite).
const ADMISSION_VERSIONS = `(case when jsonb_typeof(c.metadata->'${VERSIONS_DIGEST_KEY}') = 'string'
  then 'digest:' || (c.metadata->>'${VERSIONS_DIGEST_KEY}') else ${VERSIONS} end)`;

// A leaf our runs recorded is judged from its checkpoint_runs row: the
// checkpoint's jsonb columns are read only for a head without one (CASE
// evaluates the branch it takes), so the run maps older leaves carry are
// never detoasted for a recorded head.
const LEGACY = (expr: string) => `case when r.run_id is null then ${expr} end`;
const HEAD_SQL = `select c.checkpoint_id as id, c.parent_checkpoint_id as "parentId",
    r.run_id as "recordedRunId", r.handle_id as "recordedParentId", r.leaf_digest as "leafDigest", r.handle_digest as "parentDigest",
    case when r.run_id is null then coalesce(${DURATION_ONLY}, false) else true end as "durationOnly",
    ${LEGACY(ADMISSION_VERSIONS)} as versions, ${LEGACY(`(c.metadata->'run_durations')::text`)} as durations,
    ${LEGACY(`(c.metadata->'run_message_ids')::text`)} as "messageIds", ${LEGACY(`(c.metadata->'run_order')::text`)} as "runOrder"
  from checkpoints c left join checkpoint_runs r on r.thread_id = c.thread_id and r.leaf_id = c.checkpoint_id
  where c.thread_id = $1 and c.checkpoint_ns = $2 order by c.checkpoint_id desc limit 1`;

// PostgresSaver keeps no channel values in the checkpoint row (all live in
// blobs keyed by version); a row that has inline values compares them too.
const COMPARE_SQL = `select ${VERSIONS} as versions, coalesce(c.checkpoint->'channel_values', '{}'::jsonb)::text as "values"
  from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = $3`;

// The guards repeat the proof inside the deletion: still the newest, no
// writes, and the leaf names exactly its parent's channel versions, so every
// blob it reached is still reached by the parent (CRC-10: no blob is
// stranded, none is deleted, no sweep is needed); a missing parent keeps the
// leaf too. The checkpoints primary key is descended once: a backward scan
// takes the newest two rows (the leaf and, on every thread our runs wrote,
// its parent, the run's handle written just before it); the leaf must be
// the first and is deleted by the row address that scan found, and the
// parent's versions come from the second unless it is another checkpoint
// (then by key). Each further descent of a growing index costs a block per
// level on a long thread (scripts/bench/checkpoint-admission.ts).
const LEAF_TOP_CTE = `top as materialized (
    select ctid as tid, checkpoint_id as id, checkpoint->'channel_versions' as versions
    from checkpoints where thread_id = $1 and checkpoint_ns = $2 order by checkpoint_id desc limit 2)`;
const DELETE_LEAF_SQL = `delete from checkpoints c
  where c.ctid = (select t.tid from top t where t.id = $3 and t.id = (select max(id) from top))
  and c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = $3
  and not exists (select 1 from checkpoint_writes w where w.thread_id = $1 and w.checkpoint_ns = $2 and w.checkpoint_id = $3)
  and c.checkpoint->'channel_versions' = coalesce(
    (select t.versions from top t where t.id = c.parent_checkpoint_id),
    (select p.checkpoint->'channel_versions' from checkpoints p where p.thread_id = $1 and p.checkpoint_ns = $2 and p.checkpoint_id = c.parent_checkpoint_id))`;

// Every retention deletion bumps the thread's epoch in its own transaction,
// so a read on any instance that met the deletion sees the bump after it.
const BUMP_EPOCH_SQL = `insert into checkpoint_epochs (thread_id, epoch) values ($1, 1)
  on conflict (thread_id) do update set epoch = checkpoint_epochs.epoch + 1`;
// The leaf's guarded deletion and the bump in one statement (one round trip, atomic).
const DELETE_LEAF_AND_BUMP_SQL = `with ${LEAF_TOP_CTE}, gone as (${DELETE_LEAF_SQL} returning c.thread_id)
  insert into checkpoint_epochs (thread_id, epoch) select thread_id, 1 from gone
  on conflict (thread_id) do update set epoch = checkpoint_epochs.epoch + 1`;

const RUN_COLUMNS = `thread_id as "threadId", run_id as "runId", status, duration_ms as "durationMs", message_ids as "messageIds",
  handle_id as "handleId", leaf_id as "leafId", leaf_digest as "leafDigest", handle_digest as "handleDigest", issued_at_ms as "issuedAtMs"`;
const NEXT_SEQ = `(select coalesce(max(seq), 0) + 1 from checkpoint_runs where thread_id = $1)`;

// A blob is reachable while some checkpoint of its thread and namespace
// names its version for its channel. General retention sweeps the whole
// thread from its survivors (one pass over each table, hash anti-join), so
// a version a survivor still shares stays (the shared-version case).
const DELETE_UNREACHABLE_BLOBS_SQL = `with named as (
    select distinct e.key as channel, e.value as version
    from checkpoints c, jsonb_each_text(c.checkpoint->'channel_versions') e where c.thread_id = $1 and c.checkpoint_ns = $2)
  delete from checkpoint_blobs b where b.thread_id = $1 and b.checkpoint_ns = $2
    and not exists (select 1 from named n where n.channel = b.channel and n.version = b.version)`;

// Path integrity for reads (see sqlite-store-sql.ts PATH_END_SQL): the parent
// chain from a checkpoint (default: the newest) on primary-key lookups; the
// deepest row's non-null parent is missing unless the depth cap (the
// thread's row count) was hit, which only a cycle can do.
const PATH_END_SQL = `with recursive
  cap(n) as (select count(*)::int from checkpoints where thread_id = $1 and checkpoint_ns = $2),
  path(id, parent, depth) as (
    select checkpoint_id, parent_checkpoint_id, 0 from checkpoints
      where thread_id = $1 and checkpoint_ns = $2
        and checkpoint_id = coalesce($3::text, (select max(checkpoint_id) from checkpoints where thread_id = $1 and checkpoint_ns = $2))
    union all
    select c.checkpoint_id, c.parent_checkpoint_id, p.depth + 1 from path p
      join checkpoints c on c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = p.parent
      where p.depth < (select n from cap)
  )
  select id, parent as "parentId", depth, (select n from cap) as cap from path order by depth desc limit 1`;

type CompareRow = { versions: string | null; values: string | null };

export function createPgCheckpointStore(db: PgDb): CheckpointStore {
  const tablesExist = async () =>
    (await db.one<{ ok: boolean }>(
      `select to_regclass('public.checkpoints') is not null and to_regclass('public.checkpoint_writes') is not null and to_regclass('public.checkpoint_blobs') is not null as ok`,
    ))!.ok;
  const count = async (sql: string, params: unknown[]) => (await db.one<{ n: number }>(sql, params))!.n;

  const store: CheckpointStore = {
    transaction: (fn) => writerTransaction(db, "checkpoints", fn),

    orderedWrites: async ({ threadId, namespace, checkpointId }) =>
      (await db
        .query<{ task_id: string; channel: string; type: string | null; value: string | null }>(
          `select task_id, channel, type, convert_from(blob, 'UTF8') as value from checkpoint_writes
           where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3 order by task_id, idx`,
          [threadId, namespace, checkpointId],
        ))
        .map((r): StoredWrite => ({ taskId: r.task_id, channel: r.channel, type: r.type, value: r.value })),

    latestMetadata: async (threadId) => {
      const row = await db.one<{ metadata: string }>(
        `select metadata::text as metadata from checkpoints where thread_id = $1 and checkpoint_ns = '' order by checkpoint_id desc limit 1`,
        [threadId],
      );
      return row ? { type: "json", value: row.metadata } : undefined;
    },

    parentLinks: async (threadId) => {
      if (!(await tablesExist())) return new Map();
      const rows = await db.query<{ id: string; parentId: string | null }>(
        `select checkpoint_id as id, parent_checkpoint_id as "parentId" from checkpoints where thread_id = $1 and checkpoint_ns = $2`,
        [threadId, ROOT_NS],
      );
      return new Map(rows.map((r) => [r.id, r.parentId]));
    },

    pathBreak: async (threadId, fromId): Promise<PathBreak | null> => {
      if (!(await tablesExist())) return null;
      const end = await db.one<{ id: string; parentId: string | null; depth: number; cap: number }>(PATH_END_SQL, [threadId, ROOT_NS, fromId ?? null]);
      if (!end || end.parentId === null) return null;
      if (Number(end.depth) >= Number(end.cap)) return { kind: "cycle", checkpointId: end.id };
      return { kind: "missing_parent", checkpointId: end.id, parentId: end.parentId };
    },

    listThreadCheckpoints: async (threadId) => await db.query<CheckpointRow>(THREAD_ROWS_SQL, [threadId, ROOT_NS]),

    listCheckpointOrigins: async (threadId) =>
      (await db
        .query<{ id: string; source: string | null; step: string | null }>(
          `select c.checkpoint_id as id,
             case when jsonb_typeof(c.metadata->'source') = 'string' then c.metadata->>'source' end as source,
             case when jsonb_typeof(c.metadata->'step') = 'number' then c.metadata->>'step' end as step
           from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 order by c.checkpoint_id`,
          [threadId, ROOT_NS],
        ))
        .map((r): CheckpointOrigin => ({ id: r.id, source: r.source, step: r.step === null ? null : Number(r.step) })),

    foreignNamespaceRows: async (threadId) =>
      count(
        `select (select count(*) from checkpoints where thread_id = $1 and checkpoint_ns <> $2)
              + (select count(*) from checkpoint_writes where thread_id = $1 and checkpoint_ns <> $2) as n`,
        [threadId, ROOT_NS],
      ),

    admissionHead: async (threadId): Promise<AdmissionHead | undefined> => {
      const row = await db.one<AdmissionHeadRow>(HEAD_SQL, [threadId, ROOT_NS]);
      return row ? admissionHeadFrom(row) : undefined;
    },

    checkpointExists: async (threadId, checkpointId) =>
      await db.one(`select 1 from checkpoints where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3`, [threadId, ROOT_NS, checkpointId]) !== null,

    channelVersions: async (threadId, checkpointId) =>
      await db.one<{ versions: string | null }>(`select ${ADMISSION_VERSIONS} as versions from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = $3`, [
        threadId,
        ROOT_NS,
        checkpointId,
      ]) ?? undefined,

    hasPendingWrites: async (threadId, checkpointId) =>
      await db.one(`select 1 from checkpoint_writes where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3 limit 1`, [threadId, ROOT_NS, checkpointId]) !== null,

    compareWithParent: async (threadId, childId, parentId): Promise<PairProof | null> => {
      const child = await db.one<CompareRow>(COMPARE_SQL, [threadId, ROOT_NS, childId]);
      const parent = await db.one<CompareRow>(COMPARE_SQL, [threadId, ROOT_NS, parentId]);
      if (!child?.versions || !parent?.versions) return null;
      const versionsEqual = child.versions === parent.versions;
      const parentTasks = await db.one(
        `select 1 from checkpoint_writes where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3 and channel = $4 limit 1`,
        [threadId, ROOT_NS, parentId, TASKS],
      );
      return {
        versionsEqual,
        // Blob values are keyed by version: equal versions and equal inline values are equal state.
        valuesEqual: versionsEqual && child.values !== null && child.values === parent.values,
        parentHasTaskWrites: parentTasks !== null,
      };
    },

    deleteTrailingLeaf: async (threadId, leafId) => await db.run(DELETE_LEAF_AND_BUMP_SQL, [threadId, ROOT_NS, leafId]) === 1,

    deleteCheckpoints: async (threadId, ids) => {
      if (ids.length === 0) return { checkpoints: 0, writes: 0 };
      // Rows, blobs and the epoch bump commit together (the callers' transaction, or one of its own).
      if (!db.inTransaction()) return writerTransaction(db, "checkpoints", () => store.deleteCheckpoints(threadId, ids));
      const out = { checkpoints: 0, writes: 0 };
      for (const id of ids) {
        out.writes += await db.run(`delete from checkpoint_writes where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3`, [threadId, ROOT_NS, id]);
        out.checkpoints += await db.run(`delete from checkpoints where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3`, [threadId, ROOT_NS, id]);
      }
      if (out.checkpoints > 0) {
        await db.run(DELETE_UNREACHABLE_BLOBS_SQL, [threadId, ROOT_NS]);
        await db.run(BUMP_EPOCH_SQL, [threadId]);
      }
      return out;
    },

    retentionEpoch: async (threadId) => Number((await db.one<{ epoch: number }>(`select epoch from checkpoint_epochs where thread_id = $1`, [threadId]))?.epoch ?? 0),

    reparentChildren: async (threadId, fromId, toId) => {
      await db.run(`update checkpoints set parent_checkpoint_id = $1 where thread_id = $2 and checkpoint_ns = $3 and parent_checkpoint_id = $4`, [toId, threadId, ROOT_NS, fromId]);
    },

    recordRun: async (r) => {
      await db.run(
        `insert into checkpoint_runs (thread_id, run_id, seq, status, duration_ms, message_ids, handle_id, leaf_id, leaf_digest, handle_digest, issued_at_ms)
         values ($1, $2, ${NEXT_SEQ}, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [r.threadId, r.runId, r.status, r.durationMs, JSON.stringify(r.messageIds), r.handleId, r.leafId, r.leafDigest, r.handleDigest, r.issuedAtMs],
      );
    },

    importLegacyRuns: async (threadId, runs, atMs) => {
      for (const r of runs) {
        await db.run(
          `insert into checkpoint_runs (thread_id, run_id, seq, status, duration_ms, message_ids, issued_at_ms)
           values ($1, $2, ${NEXT_SEQ}, 'success', $3, $4, $5) on conflict (thread_id, run_id) do nothing`,
          [threadId, r.runId, r.durationMs, JSON.stringify(r.messageIds), atMs],
        );
      }
    },

    hasRuns: async (threadId) => await db.one(`select 1 from checkpoint_runs where thread_id = $1 limit 1`, [threadId]) !== null,

    listRuns: async (threadId): Promise<RunRecord[]> =>
      (await db.query<RunRow>(`select ${RUN_COLUMNS} from checkpoint_runs where thread_id = $1 order by seq, run_id`, [threadId])).map(runRecordFrom),

    threadHandles: async (threadId) =>
      (await db
        .query<HandleRecord>(
          `select handle_id as "checkpointId", run_id as "runId", issued_at_ms as "issuedAtMs" from checkpoint_runs
           where thread_id = $1 and handle_id is not null order by seq, run_id`,
          [threadId],
        ))
        .map((h) => ({ ...h, issuedAtMs: Number(h.issuedAtMs) })),

    handleRecord: async (threadId, checkpointId) => {
      const h = await db.one<HandleRecord>(
        `select handle_id as "checkpointId", run_id as "runId", issued_at_ms as "issuedAtMs" from checkpoint_runs
         where thread_id = $1 and handle_id = $2 order by issued_at_ms desc limit 1`,
        [threadId, checkpointId],
      );
      return h ? { ...h, issuedAtMs: Number(h.issuedAtMs) } : undefined;
    },

    listThreadIds: async () => ((await tablesExist()) ? (await db.query<{ id: string }>(`select distinct thread_id as id from checkpoints order by thread_id`)).map((r) => r.id) : []),

    threadTotals: async (threadId) =>
      (await db.one<ThreadTotals>(
        `select (select count(*) from checkpoints where thread_id = $1) as checkpoints,
           (select coalesce(sum(${CHECKPOINT_BYTES}), 0)::bigint from checkpoints c where c.thread_id = $1)
             + (select coalesce(sum(octet_length(b.blob)), 0)::bigint from checkpoint_blobs b where b.thread_id = $1) as "checkpointBytes",
           (select count(*) from checkpoint_writes where thread_id = $1) as writes,
           (select coalesce(sum(octet_length(blob)), 0)::bigint from checkpoint_writes where thread_id = $1) as "writesBytes"`,
        [threadId],
      ))!,

    countOrphanWrites: async (threadId) => {
      const orphan = `not exists (select 1 from checkpoints c where ${WRITES_OF_C})`;
      return threadId === undefined
        ? count(`select count(*) as n from checkpoint_writes w where ${orphan}`, [])
        : count(`select count(*) as n from checkpoint_writes w where w.thread_id = $1 and ${orphan}`, [threadId]);
    },

    tableUsage: async () => {
      if (!(await tablesExist())) return { checkpoints: ZERO_USAGE, writes: ZERO_USAGE };
      return {
        checkpoints: (await db.one<TableUsage>(
          `select (select count(*) from checkpoints) as rows,
             (select coalesce(sum(${CHECKPOINT_BYTES}), 0)::bigint from checkpoints c) + (select coalesce(sum(octet_length(blob)), 0)::bigint from checkpoint_blobs) as bytes`,
        ))!,
        writes: (await db.one<TableUsage>(`select count(*) as rows, coalesce(sum(octet_length(blob)), 0)::bigint as bytes from checkpoint_writes`))!,
      };
    },

    largestThreads: async (limit) => {
      if (!(await tablesExist())) return [];
      return await db.query<ThreadUsage>(
        `with c as (select thread_id, count(*) as n, sum(${CHECKPOINT_BYTES})::bigint as b from checkpoints c group by thread_id),
              w as (select thread_id, count(*) as n, sum(coalesce(octet_length(blob), 0))::bigint as b from checkpoint_writes group by thread_id)
         select c.thread_id as "threadId", c.n as checkpoints, coalesce(w.n, 0) as writes, (c.b + coalesce(w.b, 0))::bigint as bytes
         from c left join w on w.thread_id = c.thread_id order by bytes desc, "threadId" limit $1`,
        [limit],
      );
    },

    readResultRecord: async () => (await db.one<{ value: string }>(`select value from settings where key = $1`, [CHECKPOINT_RETENTION_SETTINGS_KEY]))?.value,

    writeResultRecord: async (value, nowMs) => {
      await db.run(
        `insert into settings (key, value, updated_at_ms) values ($1, $2, $3)
         on conflict (key) do update set value = excluded.value, updated_at_ms = excluded.updated_at_ms`,
        [CHECKPOINT_RETENTION_SETTINGS_KEY, value, nowMs],
      );
    },
  };
  return store;
}
