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
// - admission compares the channel_versions digest our saver stamps into
//   the jsonb metadata, as on SQLite;
// - sizes are pg_column_size / octet_length (stored bytes).
// Before the saver's setup() its tables do not exist: reads answer empty.
import { TASKS } from "@langchain/langgraph-checkpoint";
import { CHECKPOINT_RETENTION_SETTINGS_KEY, type TableUsage, type ThreadUsage } from "@/lib/checkpoints/api";
import type { SqlClient } from "@/server/db/pg/client";
import { inWriterTransaction } from "@/server/db/pg/writer-lock";
import { VERSIONS_DIGEST_KEY } from "./versions-digest";
import type { AdmissionHead, CheckpointOrigin, CheckpointRow, CheckpointStore, PairProof, PathBreak, StoredWrite, ThreadTotals } from "./store";

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

const HEAD_SQL = `select c.checkpoint_id as id, c.parent_checkpoint_id as "parentId", coalesce(${DURATION_ONLY}, false) as "durationOnly",
    ${ADMISSION_VERSIONS} as versions, (c.metadata->'run_durations')::text as durations, (c.metadata->'run_message_ids')::text as "messageIds",
    (c.metadata->'run_order')::text as "runOrder"
  from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 order by c.checkpoint_id desc limit 1`;

// PostgresSaver keeps no channel values in the checkpoint row (all live in
// blobs keyed by version); a row that has inline values compares them too.
const COMPARE_SQL = `select ${VERSIONS} as versions, coalesce(c.checkpoint->'channel_values', '{}'::jsonb)::text as "values"
  from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = $3`;

const DELETE_LEAF_SQL = `delete from checkpoints where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3
  and not exists (select 1 from checkpoint_writes where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3)
  and not exists (select 1 from checkpoints k where k.thread_id = $1 and k.checkpoint_ns = $2 and k.checkpoint_id > $3)
  returning (checkpoint->'channel_versions')::text as versions, parent_checkpoint_id as "parentId"`;

// A blob is reachable while some checkpoint of its thread and namespace
// names its version for its channel. General retention sweeps the whole
// thread from its survivors (one pass over each table, hash anti-join), so
// a version a survivor still shares stays (the shared-version case).
const DELETE_UNREACHABLE_BLOBS_SQL = `with named as (
    select distinct e.key as channel, e.value as version
    from checkpoints c, jsonb_each_text(c.checkpoint->'channel_versions') e where c.thread_id = $1 and c.checkpoint_ns = $2)
  delete from checkpoint_blobs b where b.thread_id = $1 and b.checkpoint_ns = $2
    and not exists (select 1 from named n where n.channel = b.channel and n.version = b.version)`;

// A deleted trailing leaf can only strand the (channel, version) pairs it
// named and its parent does not; the usual leaf (a copy of its parent's
// versions) strands none, so admission touches no blob (CRC-10).
const DELETE_STRANDED_BLOBS_SQL = `delete from checkpoint_blobs b
  using (select e.key as channel, e.value as version from jsonb_each_text($3::jsonb) e) cand
  where b.thread_id = $1 and b.checkpoint_ns = $2 and b.channel = cand.channel and b.version = cand.version
    and not exists (select 1 from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2
                    and c.checkpoint->'channel_versions'->>cand.channel = cand.version)`;

type VersionMap = Record<string, string>;

function parseVersions(text: string | null | undefined): VersionMap {
  if (!text) return {};
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

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

export function createPgCheckpointStore(client: SqlClient): CheckpointStore {
  const tablesExist = () =>
    client.one<{ ok: boolean }>(
      `select to_regclass('public.checkpoints') is not null and to_regclass('public.checkpoint_writes') is not null and to_regclass('public.checkpoint_blobs') is not null as ok`,
    )!.ok;
  const count = (sql: string, params: unknown[]) => client.one<{ n: number }>(sql, params)!.n;

  return {
    transaction: (fn) => inWriterTransaction(client, "checkpoints", fn),

    orderedWrites: ({ threadId, namespace, checkpointId }) =>
      client
        .query<{ task_id: string; channel: string; type: string | null; value: string | null }>(
          `select task_id, channel, type, convert_from(blob, 'UTF8') as value from checkpoint_writes
           where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3 order by task_id, idx`,
          [threadId, namespace, checkpointId],
        )
        .map((r): StoredWrite => ({ taskId: r.task_id, channel: r.channel, type: r.type, value: r.value })),

    latestMetadata: (threadId) => {
      const row = client.one<{ metadata: string }>(
        `select metadata::text as metadata from checkpoints where thread_id = $1 and checkpoint_ns = '' order by checkpoint_id desc limit 1`,
        [threadId],
      );
      return row ? { type: "json", value: row.metadata } : undefined;
    },

    parentLinks: (threadId) => {
      if (!tablesExist()) return new Map();
      const rows = client.query<{ id: string; parentId: string | null }>(
        `select checkpoint_id as id, parent_checkpoint_id as "parentId" from checkpoints where thread_id = $1 and checkpoint_ns = $2`,
        [threadId, ROOT_NS],
      );
      return new Map(rows.map((r) => [r.id, r.parentId]));
    },

    pathBreak: (threadId, fromId): PathBreak | null => {
      if (!tablesExist()) return null;
      const end = client.one<{ id: string; parentId: string | null; depth: number; cap: number }>(PATH_END_SQL, [threadId, ROOT_NS, fromId ?? null]);
      if (!end || end.parentId === null) return null;
      if (Number(end.depth) >= Number(end.cap)) return { kind: "cycle", checkpointId: end.id };
      return { kind: "missing_parent", checkpointId: end.id, parentId: end.parentId };
    },

    listThreadCheckpoints: (threadId) => client.query<CheckpointRow>(THREAD_ROWS_SQL, [threadId, ROOT_NS]),

    listCheckpointOrigins: (threadId) =>
      client
        .query<{ id: string; source: string | null; step: string | null }>(
          `select c.checkpoint_id as id,
             case when jsonb_typeof(c.metadata->'source') = 'string' then c.metadata->>'source' end as source,
             case when jsonb_typeof(c.metadata->'step') = 'number' then c.metadata->>'step' end as step
           from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 order by c.checkpoint_id`,
          [threadId, ROOT_NS],
        )
        .map((r): CheckpointOrigin => ({ id: r.id, source: r.source, step: r.step === null ? null : Number(r.step) })),

    foreignNamespaceRows: (threadId) =>
      count(
        `select (select count(*) from checkpoints where thread_id = $1 and checkpoint_ns <> $2)
              + (select count(*) from checkpoint_writes where thread_id = $1 and checkpoint_ns <> $2) as n`,
        [threadId, ROOT_NS],
      ),

    admissionHead: (threadId) => client.one<AdmissionHead>(HEAD_SQL, [threadId, ROOT_NS]) ?? undefined,

    channelVersions: (threadId, checkpointId) =>
      client.one<{ versions: string | null }>(`select ${ADMISSION_VERSIONS} as versions from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = $3`, [
        threadId,
        ROOT_NS,
        checkpointId,
      ]) ?? undefined,

    hasPendingWrites: (threadId, checkpointId) =>
      client.one(`select 1 from checkpoint_writes where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3 limit 1`, [threadId, ROOT_NS, checkpointId]) !== null,

    compareWithParent: (threadId, childId, parentId): PairProof | null => {
      const child = client.one<CompareRow>(COMPARE_SQL, [threadId, ROOT_NS, childId]);
      const parent = client.one<CompareRow>(COMPARE_SQL, [threadId, ROOT_NS, parentId]);
      if (!child?.versions || !parent?.versions) return null;
      const versionsEqual = child.versions === parent.versions;
      const parentTasks = client.one(
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

    deleteTrailingLeaf: (threadId, leafId) => {
      const gone = client.query<{ versions: string | null; parentId: string | null }>(DELETE_LEAF_SQL, [threadId, ROOT_NS, leafId])[0];
      if (!gone) return false;
      // Flat cost for the usual leaf (the parent names the same versions): only pairs the parent does not name are swept.
      const parent = gone.parentId ? client.one<{ versions: string | null }>(`select ${VERSIONS} as versions from checkpoints c where c.thread_id = $1 and c.checkpoint_ns = $2 and c.checkpoint_id = $3`, [threadId, ROOT_NS, gone.parentId]) : null;
      const kept = parseVersions(parent?.versions);
      const candidates = Object.fromEntries(Object.entries(parseVersions(gone.versions)).filter(([channel, version]) => kept[channel] !== version));
      if (Object.keys(candidates).length > 0) client.run(DELETE_STRANDED_BLOBS_SQL, [threadId, ROOT_NS, JSON.stringify(candidates)]);
      return true;
    },

    deleteCheckpoints: (threadId, ids) => {
      const out = { checkpoints: 0, writes: 0 };
      if (ids.length === 0) return out;
      for (const id of ids) {
        out.writes += client.run(`delete from checkpoint_writes where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3`, [threadId, ROOT_NS, id]);
        out.checkpoints += client.run(`delete from checkpoints where thread_id = $1 and checkpoint_ns = $2 and checkpoint_id = $3`, [threadId, ROOT_NS, id]);
      }
      if (out.checkpoints > 0) client.run(DELETE_UNREACHABLE_BLOBS_SQL, [threadId, ROOT_NS]);
      return out;
    },

    reparentChildren: (threadId, fromId, toId) => {
      client.run(`update checkpoints set parent_checkpoint_id = $1 where thread_id = $2 and checkpoint_ns = $3 and parent_checkpoint_id = $4`, [toId, threadId, ROOT_NS, fromId]);
    },

    listThreadIds: () => (tablesExist() ? client.query<{ id: string }>(`select distinct thread_id as id from checkpoints order by thread_id`).map((r) => r.id) : []),

    threadTotals: (threadId) =>
      client.one<ThreadTotals>(
        `select (select count(*) from checkpoints where thread_id = $1) as checkpoints,
           (select coalesce(sum(${CHECKPOINT_BYTES}), 0)::bigint from checkpoints c where c.thread_id = $1)
             + (select coalesce(sum(octet_length(b.blob)), 0)::bigint from checkpoint_blobs b where b.thread_id = $1) as "checkpointBytes",
           (select count(*) from checkpoint_writes where thread_id = $1) as writes,
           (select coalesce(sum(octet_length(blob)), 0)::bigint from checkpoint_writes where thread_id = $1) as "writesBytes"`,
        [threadId],
      )!,

    countOrphanWrites: (threadId) => {
      const orphan = `not exists (select 1 from checkpoints c where ${WRITES_OF_C})`;
      return threadId === undefined
        ? count(`select count(*) as n from checkpoint_writes w where ${orphan}`, [])
        : count(`select count(*) as n from checkpoint_writes w where w.thread_id = $1 and ${orphan}`, [threadId]);
    },

    tableUsage: () => {
      if (!tablesExist()) return { checkpoints: ZERO_USAGE, writes: ZERO_USAGE };
      return {
        checkpoints: client.one<TableUsage>(
          `select (select count(*) from checkpoints) as rows,
             (select coalesce(sum(${CHECKPOINT_BYTES}), 0)::bigint from checkpoints c) + (select coalesce(sum(octet_length(blob)), 0)::bigint from checkpoint_blobs) as bytes`,
        )!,
        writes: client.one<TableUsage>(`select count(*) as rows, coalesce(sum(octet_length(blob)), 0)::bigint as bytes from checkpoint_writes`)!,
      };
    },

    largestThreads: (limit) => {
      if (!tablesExist()) return [];
      return client.query<ThreadUsage>(
        `with c as (select thread_id, count(*) as n, sum(${CHECKPOINT_BYTES})::bigint as b from checkpoints c group by thread_id),
              w as (select thread_id, count(*) as n, sum(coalesce(octet_length(blob), 0))::bigint as b from checkpoint_writes group by thread_id)
         select c.thread_id as "threadId", c.n as checkpoints, coalesce(w.n, 0) as writes, (c.b + coalesce(w.b, 0))::bigint as bytes
         from c left join w on w.thread_id = c.thread_id order by bytes desc, "threadId" limit $1`,
        [limit],
      );
    },

    readResultRecord: () => client.one<{ value: string }>(`select value from settings where key = $1`, [CHECKPOINT_RETENTION_SETTINGS_KEY])?.value,

    writeResultRecord: (value, nowMs) => {
      client.run(
        `insert into settings (key, value, updated_at_ms) values ($1, $2, $3)
         on conflict (key) do update set value = excluded.value, updated_at_ms = excluded.updated_at_ms`,
        [CHECKPOINT_RETENTION_SETTINGS_KEY, value, nowMs],
      );
    },
  };
}
