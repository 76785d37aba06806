// The PostgreSQL implementation of the RestoreStore, on the node-postgres
// pool. Statements mirror sqlite-store.ts. A UTF8 database holds only valid
// UTF-8; a SQL_ASCII one may hold any bytes, and node-postgres (a UTF8
// client) cannot even receive text that is not UTF-8 from it (the server
// refuses to send it). So a row's metadata and updated_at cross the wire as
// the hex of their stored bytes (convert_to ... 'SQL_ASCII' converts
// nothing, on either kind of database), are decoded here as UTF-8 text or,
// when they are not UTF-8, kept as a byte string, and bytes are written and
// guarded through convert_from(..., 'SQL_ASCII') of them, as compaction's
// store does. The rows read are a task's compacted rows (small) and the
// rows naming the marker, within plan.ts's byte budget per statement.
import "server-only";
import type { PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import { TOOL_MESSAGE_TYPES } from "../store";
import { storedText } from "./backup-reader";
import { storedBytes } from "./proof";
import type { CurrentRow, RestoreRecord, RestoreStore, ToolRowHeader } from "./store";

const TYPE_LIST = TOOL_MESSAGE_TYPES.map((type) => `'${type}'`).join(", ");

export const PG_RESTORE_SQL = {
  taskExists: `select 1 as hit from tasks where id = $1`,
  sessions: `select id from task_sessions where task_id = $1 order by seq`,
  // strpos runs in the server: no body crosses the wire for a header.
  headers: `select rowid, id, type, coalesce(octet_length(metadata), 0) as bytes,
              coalesce(strpos(metadata, '"payload_retention"') > 0, false) as marked
            from messages where session_id = $1 and rowid > $2 and type in (${TYPE_LIST})
            order by rowid limit $3`,
  rows: `select rowid, id, type, encode(convert_to(metadata, 'SQL_ASCII'), 'hex') as "metadataHex",
           encode(convert_to(updated_at, 'SQL_ASCII'), 'hex') as "updatedAtHex" from messages where rowid = any($1::bigint[])`,
  restore: `update messages set metadata = $1 where rowid = $2 and metadata = $3 and updated_at is not distinct from $4`,
  restoreBytes: `update messages set metadata = convert_from(decode($1, 'hex'), 'SQL_ASCII')
                 where rowid = $2 and metadata = convert_from(decode($3, 'hex'), 'SQL_ASCII') and updated_at is not distinct from $4`,
  insertRecord: `insert into payload_restores (id, task_id, backup_name, backup_sha256, actor, hold, state, started_at_ms, finished_at_ms, runner_id,
                   restored_messages, restored_bytes, skipped, error_code)
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
  progress: `update payload_restores set restored_messages = $2, restored_bytes = $3, skipped = $4, backup_sha256 = coalesce($5, backup_sha256) where id = $1`,
  finish: `update payload_restores set state = $2, finished_at_ms = $3, error_code = $4, restored_messages = $5, restored_bytes = $6, skipped = $7,
             backup_sha256 = coalesce($8, backup_sha256) where id = $1`,
  record: `select id, task_id as "taskId", backup_name as "backupName", backup_sha256 as "backupSha256", actor, hold, state, started_at_ms as "startedAtMs",
             finished_at_ms as "finishedAtMs", runner_id as "runnerId", restored_messages as "restoredMessages", restored_bytes as "restoredBytes",
             skipped, error_code as "errorCode" from payload_restores`,
  interrupt: `update payload_restores set state = 'failed', error_code = 'interrupted', finished_at_ms = $1 where state = 'running'`,
} as const;

type RawRow = { rowid: number; id: string; type: string; metadataHex: string | null; updatedAtHex: string | null };

const hex = (text: string, encoding: CurrentRow["encoding"]) => storedBytes(text, encoding).toString("hex");

export function createPgRestoreStore(db: PgDb): RestoreStore {
  const currentRow = (row: RawRow): CurrentRow => {
    const base = { rowid: Number(row.rowid), id: row.id, type: row.type, updatedAt: row.updatedAtHex === null ? null : Buffer.from(row.updatedAtHex, "hex").toString("utf8") };
    if (row.metadataHex === null) return { ...base, metadata: null, encoding: "utf8" };
    const stored = storedText(Buffer.from(row.metadataHex, "hex"));
    return { ...base, metadata: stored.text, encoding: stored.encoding };
  };
  const record = async (where: string, params: unknown[]) => db.one<RestoreRecord>(`${PG_RESTORE_SQL.record} ${where}`, params);
  return {
    // Nested or not, the transaction takes the compaction writer lock (see hold/pg-store.ts).
    writeTransaction: (fn) => writerTransaction(db, "compaction", fn),
    taskExists: async (taskId) => (await db.one(PG_RESTORE_SQL.taskExists, [taskId])) !== null,
    listSessionIds: async (taskId) => (await db.query<{ id: string }>(PG_RESTORE_SQL.sessions, [taskId])).map((row) => row.id),
    listToolRowHeaders: async ({ sessionId, afterRowid, limit }) =>
      (await db.query<ToolRowHeader>(PG_RESTORE_SQL.headers, [sessionId, afterRowid ?? 0, limit])).map((row) => ({ ...row, rowid: Number(row.rowid) })),
    readRows: async (rowids) => {
      if (rowids.length === 0) return [];
      const rows = await db.query<RawRow>(PG_RESTORE_SQL.rows, [rowids.map((r) => Math.trunc(r))]);
      const byRowid = new Map<number, CurrentRow>();
      for (const row of rows) byRowid.set(Number(row.rowid), currentRow(row));
      return rowids.flatMap((rowid) => byRowid.get(rowid) ?? []);
    },
    restoreRow: async (write) => {
      const bytes = write.nextEncoding === "bytes" || write.observedEncoding === "bytes";
      const changed = bytes
        ? await db.run(PG_RESTORE_SQL.restoreBytes, [hex(write.next, write.nextEncoding), write.rowid, hex(write.observed, write.observedEncoding), write.observedUpdatedAt])
        : await db.run(PG_RESTORE_SQL.restore, [write.next, write.rowid, write.observed, write.observedUpdatedAt]);
      return changed === 1;
    },
    insertRecord: async (r) => {
      await db.run(PG_RESTORE_SQL.insertRecord, [
        r.id,
        r.taskId,
        r.backupName,
        r.backupSha256,
        r.actor,
        r.hold,
        r.state,
        r.startedAtMs,
        r.finishedAtMs,
        r.runnerId,
        r.restoredMessages,
        r.restoredBytes,
        r.skipped,
        r.errorCode,
      ]);
    },
    updateProgress: async (p) => {
      await db.run(PG_RESTORE_SQL.progress, [p.id, p.restoredMessages, p.restoredBytes, p.skipped, p.backupSha256 ?? null]);
    },
    finishRecord: async (d) => {
      await db.run(PG_RESTORE_SQL.finish, [d.id, d.state, d.finishedAtMs, d.errorCode, d.restoredMessages, d.restoredBytes, d.skipped, d.backupSha256 ?? null]);
    },
    readRecord: (id) => record("where id = $1", [id]),
    latestRecord: (taskId) => record("where task_id = $1 order by started_at_ms desc, id desc limit 1", [taskId]),
    interruptRunning: (options) => db.run(PG_RESTORE_SQL.interrupt, [options.finishedAtMs]),
  };
}
