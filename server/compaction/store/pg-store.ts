// The PostgreSQL implementation of the compaction store, on the
// node-postgres pool (server/db/pg/pg-db.ts): a statement outside a
// transaction takes any idle pooled session, a writer transaction holds one
// for its whole callback. The same verbs and meanings as the SQLite store,
// with PostgreSQL's means:
// - a writer transaction takes the compaction writer lock (a transaction
//   advisory lock: every instance's policy writes and batches serialize on
//   it, which is what makes the record's compare-and-set work across
//   instances);
// - a batch's deadline is a real `statement_timeout` (`set local`): the
//   server cancels an overrunning statement and the batch rolls back;
// - the rows a batch rewrites are locked `for update` before its gates are
//   re-checked, so a foreground writer of one of them waits for the commit
//   and then sees the rewritten text (its own guard compares exactly);
// - the schema version is the identity of the messages table plus the count
//   of applied migrations (a migration or a restore changes it);
// - stored bytes stay exact: a UTF8 database holds only valid UTF-8, but a
//   SQL_ASCII one holds any bytes, which the client decodes with U+FFFD. A
//   body showing U+FFFD is read again as its bytes (convert_to ...
//   'SQL_ASCII' converts nothing) and, when they are not UTF-8, reduced and
//   written back as bytes (convert_from ... 'SQL_ASCII'); a NULL value (a
//   table without the NOT NULL constraint) is `not_text`;
// - a batch is written in one UPDATE over unnest() of its rows (each row
//   guarded as alone); a rewrite the server refuses (a constraint, a
//   trigger that raises, a value it rejects) undoes that statement's
//   savepoint, and the rows written one by one name the refused row
//   (WriteRefusedError).
import "server-only";
import { PgError, SQLSTATE } from "@/server/db/pg/errors";
import { preparedStatement, type PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { StatementDeadlineError } from "../cleanup/statement-deadline";
import { WriteRefusedError } from "../cleanup/write-refused";
import { COMPACTION_SETTINGS_KEY } from "../policy/policy-schema";
import { TOOL_MESSAGE_TYPES, type BatchWrite, type CompactionStore, type PassBounds, type RowBody, type RowFacts, type RowHeader } from "../store";
import { pgEligibilityVerbs, readPgTaskProbes } from "./pg-eligibility";

/** A PostgreSQL bigint[] literal of the rows' ids. */
const rowidArray = (rows: ReadonlyArray<{ rowid: number }>) => `{${rows.map((row) => Math.trunc(Number(row.rowid))).join(",")}}`;

/** The rows found, in the caller's order (a row deleted meanwhile is absent). */
function inCallerOrder<T extends { rowid: number }>(headers: ReadonlyArray<{ rowid: number }>, found: T[]): T[] {
  const byRowid = new Map(found.map((row) => [Number(row.rowid), row]));
  return headers.flatMap((header) => byRowid.get(Number(header.rowid)) ?? []);
}

const TYPE_LIST = TOOL_MESSAGE_TYPES.map((type) => `'${type}'`).join(", ");

export const PG_CANDIDATE_SQL = {
  bounds: `select (select max(id) from tasks) as "upperTaskId", (select max(rowid) from messages) as "upperMessageRowid"`,
  tasks: `select id from tasks where id > $1 and id <= $2 order by id limit $3`,
  firstTasks: `select id from tasks where id <= $1 order by id limit $2`,
  sessions: preparedStatement(`select id from task_sessions where task_id = $1 and id > $2 order by id limit $3`),
  // octet_length of a TOASTed text reads its header, not the value.
  headers: preparedStatement(`select rowid, id, type, coalesce(octet_length(metadata), 0) as bytes, metadata is null as "notText" from messages
            where session_id = $1 and rowid > $2 and rowid <= $3 and type in (${TYPE_LIST})
            order by rowid limit $4`),
  // A page's rows in one round trip (the page was planned within its byte limits from the headers).
  // xmin and ctid name the row version read: any write of the row (even of the same text) makes another.
  bodies: preparedStatement(`select rowid, id, type, metadata, coalesce(octet_length(metadata), 0) as bytes, updated_at as "updatedAt",
      xmin::text || ':' || ctid::text as "tupleVersion" from messages where rowid = any($1::bigint[]) and session_id = $2`),
  bodyBytes: `select encode(convert_to(metadata, 'SQL_ASCII'), 'hex') as hex from messages where rowid = $1`,
  guardedUpdate: `update messages set metadata = $1 where rowid = $2 and metadata = $3`,
  guardedUpdateBytes: `update messages set metadata = convert_from(decode($1, 'hex'), 'SQL_ASCII') where rowid = $2 and metadata = convert_from(decode($3, 'hex'), 'SQL_ASCII')`,
  lockRows: preparedStatement(`select rowid from messages where rowid = any($1::bigint[]) order by rowid for update`),
  rowVersions: `select rowid, id, type, updated_at as "updatedAt", octet_length(metadata) as bytes from messages where rowid = any($1::bigint[]) and session_id = $2`,
  // No JSON judging here (jsonb would reorder keys): every row goes to the JS reducer.
  versionedUpdate: `update messages set metadata = $1 where rowid = $2 and updated_at = $3 and octet_length(metadata) = $4`,
  versionedUpdateBytes: `update messages set metadata = convert_from(decode($1, 'hex'), 'SQL_ASCII') where rowid = $2 and updated_at = $3 and octet_length(metadata) = $4`,
  // One row under its row-version guard (a batch's rows one by one after a refusal).
  tupleUpdate: `update messages set metadata = $1 where rowid = $2 and xmin::text || ':' || ctid::text = $3`,
  tupleUpdateBytes: `update messages set metadata = convert_from(decode($1, 'hex'), 'SQL_ASCII') where rowid = $2 and xmin::text || ':' || ctid::text = $3`,
  // A batch's rewrites in one statement, each row guarded by the row version read (xmin and ctid: the old
  // text is not read again), else as the two above: its stored bytes (their length and SHA-256, computed here
  // from the text read: sending the texts back would double the batch's traffic and make the server parse
  // them as array elements), or its version. The rows were locked in rowid order first; rows stored as bytes
  // travel as hex (`hex` true).
  batchUpdate: preparedStatement(`update messages m
      set metadata = case when u.hex then convert_from(decode(u.next, 'hex'), 'SQL_ASCII') else u.next end
    from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bool[], $7::text[]) as u(rowid, next, digest, updated_at, bytes, hex, tuple_version)
    where m.rowid = any($1::bigint[]) and m.rowid = u.rowid and octet_length(m.metadata) = u.bytes
      and case when u.tuple_version is not null
            then m.xmin::text || ':' || m.ctid::text = u.tuple_version
            when u.digest is not null
            then sha256(convert_to(m.metadata, 'SQL_ASCII')) = decode(u.digest, 'hex')
            else m.updated_at = u.updated_at end
    returning m.rowid`),
  toolCallRows: `select m.metadata from task_sessions s
      join task_sessions peer on peer.task_id = s.task_id
      join messages m on m.session_id = peer.id and m.tool_call_id = $1
    where s.id = $2 and strpos(m.metadata, $3) > 0`,
  readRecord: preparedStatement(`select value from settings where key = $1`),
  upsertRecord: preparedStatement(`insert into settings (key, value, updated_at_ms) values ($1, $2, $3)
    on conflict (key) do update set value = excluded.value, updated_at_ms = excluded.updated_at_ms`),
  // Never prepared: the regclass constant would keep the old table's identity across a restore.
  schemaVersion: `select ('public.messages'::regclass)::oid::bigint * 1000
      + coalesce((select count(*) from drizzle.__drizzle_migrations), 0) as version`,
} as const;

const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);

/** SQLSTATE classes of a refusal about the row itself: data exceptions (22), integrity constraints (23), a trigger's RAISE EXCEPTION (P0001). */
const REFUSAL = /^(22|23|P0001)/;
const hex = (byteString: string) => Buffer.from(byteString, "latin1").toString("hex");

type StoredBody = Omit<RowBody, "metadata" | "encoding"> & { metadata: string | null };

export function createPgCompactionStore(db: PgDb): CompactionStore {
  const write = async (rowid: number, run: () => Promise<number>): Promise<boolean> => {
    try {
      return (await run()) === 1;
    } catch (error) {
      if (error instanceof PgError && error.code !== undefined && REFUSAL.test(error.code)) throw new WriteRefusedError(rowid, `SQLSTATE ${error.code}`);
      throw error;
    }
  };
  const storedText = async (row: StoredBody): Promise<RowBody> => {
    const { metadata } = row;
    if (metadata === null) return { ...row, metadata: null, encoding: "utf8" };
    if (!metadata.includes("\ufffd")) return { ...row, metadata, encoding: "utf8" };
    const raw = await db.one<{ hex: string | null }>(PG_CANDIDATE_SQL.bodyBytes, [row.rowid]);
    const bytes = raw?.hex == null ? null : Buffer.from(raw.hex, "hex");
    if (bytes === null || isUtf8(bytes)) return { ...row, metadata, encoding: "utf8" };
    return { ...row, metadata: bytes.toString("latin1"), encoding: "bytes" };
  };
  const store: CompactionStore = {
    async writeTransaction(fn, options) {
      const deadlineMs = options?.deadlineMs;
      const timeouts = deadlineMs === undefined ? undefined : { statementTimeoutMs: Math.max(1, deadlineMs), lockTimeoutMs: Math.max(1, deadlineMs) };
      try {
        return await writerTransaction(db, "compaction", () => fn(store), timeouts);
      } catch (error) {
        // The server cancelled a statement past the batch deadline (or a lock wait ran out): the batch rolled back.
        if (deadlineMs !== undefined && error instanceof PgError && (error.code === SQLSTATE.queryCanceled || error.code === SQLSTATE.lockNotAvailable)) {
          throw new StatementDeadlineError(deadlineMs);
        }
        throw error;
      }
    },
    inWriteTransaction: () => db.inTransaction(),

    readRecordText: async () => (await db.one<{ value: string }>(PG_CANDIDATE_SQL.readRecord, [COMPACTION_SETTINGS_KEY]))?.value ?? null,
    async writeRecordText({ text, nowMs }) {
      await db.run(PG_CANDIDATE_SQL.upsertRecord, [COMPACTION_SETTINGS_KEY, text, nowMs]);
    },
    readSchemaVersion: async () => (await db.one<{ version: number }>(PG_CANDIDATE_SQL.schemaVersion))!.version,

    async captureBounds() {
      const row = (await db.one<PassBounds>(PG_CANDIDATE_SQL.bounds))!;
      return { upperTaskId: row.upperTaskId, upperMessageRowid: row.upperMessageRowid };
    },
    listTaskIds: async ({ afterTaskId, upperTaskId, limit }) =>
      ids(
        afterTaskId === null
          ? await db.query<{ id: string }>(PG_CANDIDATE_SQL.firstTasks, [upperTaskId, limit])
          : await db.query<{ id: string }>(PG_CANDIDATE_SQL.tasks, [afterTaskId, upperTaskId, limit]),
      ),
    listSessionIds: async ({ taskId, afterSessionId, limit }) => ids(await db.query<{ id: string }>(PG_CANDIDATE_SQL.sessions, [taskId, afterSessionId ?? "", limit])),
    listToolRowHeaders: async ({ sessionId, afterRowid, upperRowid, limit }) =>
      (await db.query<RowHeader & { notText: boolean }>(PG_CANDIDATE_SQL.headers, [sessionId, afterRowid ?? 0, upperRowid, limit])).map(({ notText, ...header }) =>
        notText ? { ...header, notText: true } : header,
      ),
    readToolRowBodies: async ({ sessionId, rows }) =>
      rows.length === 0 ? [] : Promise.all(inCallerOrder(rows, await db.query<StoredBody>(PG_CANDIDATE_SQL.bodies, [rowidArray(rows), sessionId])).map(storedText)),
    async lockRowsForRewrite(rowids) {
      if (rowids.length > 0) await db.query(PG_CANDIDATE_SQL.lockRows, [rowidArray(rowids.map((rowid) => ({ rowid })))]);
    },
    replaceMetadataIfUnchanged: (row) =>
      write(row.rowid, () =>
        row.encoding === "bytes"
          ? db.run(PG_CANDIDATE_SQL.guardedUpdateBytes, [hex(row.next), row.rowid, hex(row.observed)])
          : db.run(PG_CANDIDATE_SQL.guardedUpdate, [row.next, row.rowid, row.observed]),
      ),
    judgesRowsInSql: false,
    readsBesideWriter: true,
    readToolRowFacts: async ({ sessionId, rows }) =>
      rows.length === 0
        ? []
        : inCallerOrder(rows, await db.query<Omit<RowFacts, "facts">>(PG_CANDIDATE_SQL.rowVersions, [rowidArray(rows), sessionId])).map((row) => ({ ...row, facts: null })),
    replaceMetadataIfVersion: ({ rowid, updatedAt, bytes, next, encoding }) =>
      write(rowid, () =>
        encoding === "bytes"
          ? db.run(PG_CANDIDATE_SQL.versionedUpdateBytes, [hex(next), rowid, updatedAt, bytes])
          : db.run(PG_CANDIDATE_SQL.versionedUpdate, [next, rowid, updatedAt, bytes]),
      ),

    async replaceMetadataBatch(rows) {
      const asBytes = (row: BatchWrite) => row.encoding === "bytes";
      const params = [
        rows.map((row) => Math.trunc(row.rowid)),
        rows.map((row) => (asBytes(row) ? hex(row.next) : row.next)),
        rows.map((row) =>
          row.tupleVersion !== undefined || row.observed === null ? null : createHash("sha256").update(Buffer.from(row.observed, asBytes(row) ? "latin1" : "utf8")).digest("hex"),
        ),
        rows.map((row) => row.updatedAt),
        rows.map((row) => row.bytes),
        rows.map(asBytes),
        rows.map((row) => row.tupleVersion ?? null),
      ];
      try {
        // A savepoint: a refusal undoes this statement only, and the rows are tried one by one to name the refused one.
        const written = await db.transaction(() => db.query<{ rowid: number }>(PG_CANDIDATE_SQL.batchUpdate, params));
        return new Set(written.map((row) => Number(row.rowid)));
      } catch (error) {
        if (!(error instanceof PgError && error.code !== undefined && REFUSAL.test(error.code))) throw error;
      }
      const written = new Set<number>();
      for (const row of rows) {
        const { tupleVersion } = row;
        const done =
          tupleVersion !== undefined
            ? await write(row.rowid, () =>
                asBytes(row) ? db.run(PG_CANDIDATE_SQL.tupleUpdateBytes, [hex(row.next), row.rowid, tupleVersion]) : db.run(PG_CANDIDATE_SQL.tupleUpdate, [row.next, row.rowid, tupleVersion]),
              )
            : row.observed !== null
            ? await store.replaceMetadataIfUnchanged({ rowid: row.rowid, observed: row.observed, next: row.next, encoding: row.encoding })
            : await store.replaceMetadataIfVersion({ rowid: row.rowid, updatedAt: row.updatedAt, bytes: row.bytes, next: row.next, encoding: row.encoding });
        if (done) written.add(row.rowid);
      }
      return written;
    },

    ...pgEligibilityVerbs(db),
    taskProbes: (taskId, options) => readPgTaskProbes(db, [taskId], options),
    tasksProbes: (taskIds, options) => readPgTaskProbes(db, taskIds, options),

    listToolCallMetadata: async ({ sessionId, toolCallId, containing }) =>
      (await db.query<{ metadata: string }>(PG_CANDIDATE_SQL.toolCallRows, [toolCallId, sessionId, containing])).map((row) => row.metadata),
  };
  return store;
}
