// The SQLite implementation of the RestoreStore, on the asynchronous
// database (server/db/sqlite-db.ts). Stored bytes stay exact: a body whose
// decoded text shows U+FFFD is read again as its bytes and, when those are
// not UTF-8, handed on as a byte string; every write goes through
// `cast(? as text)` of the bytes, so what is written is exactly the backup's
// bytes and the guard compares exactly the stored ones.
import "server-only";
import { isUtf8 } from "node:buffer";
import type { Sqlite } from "@/server/db/client";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import { TOOL_MESSAGE_TYPES } from "../store";
import { storedBytes } from "./proof";
import type { CurrentRow, RestoreRecord, RestoreStore, ToolRowHeader } from "./store";

const TYPE_LIST = TOOL_MESSAGE_TYPES.map((type) => `'${type}'`).join(", ");

export const RESTORE_SQL = {
  taskExists: `select 1 as hit from tasks where id = ?`,
  sessions: `select id from task_sessions where task_id = ? order by rowid`,
  // instr() runs in SQLite: no body reaches JavaScript for the header.
  headers: `select rowid, id, type, coalesce(octet_length(metadata), 0) as bytes,
              typeof(metadata) = 'text' and instr(metadata, '"payload_retention"') > 0 as marked
            from messages indexed by messages_session_rowid_idx
            where session_id = ? and rowid > ? and type in (${TYPE_LIST})
            order by rowid limit cast(? as integer)`,
  row: `select rowid, id, type, metadata, cast(updated_at as text) as updatedAt from messages where rowid = ?`,
  rowBytes: `select cast(metadata as blob) as bytes from messages where rowid = ? and typeof(metadata) = 'text'`,
  restore: `update messages set metadata = cast(? as text) where rowid = ? and metadata = cast(? as text) and cast(updated_at as text) is ?`,
  insertRecord: `insert into payload_restores (id, task_id, backup_name, backup_sha256, actor, hold, state, started_at_ms, finished_at_ms, runner_id,
                   restored_messages, restored_bytes, skipped, error_code)
                 values (@id, @taskId, @backupName, @backupSha256, @actor, @hold, @state, @startedAtMs, @finishedAtMs, @runnerId,
                   @restoredMessages, @restoredBytes, @skipped, @errorCode)`,
  progress: `update payload_restores set restored_messages = @restoredMessages, restored_bytes = @restoredBytes, skipped = @skipped,
               backup_sha256 = coalesce(@backupSha256, backup_sha256) where id = @id`,
  finish: `update payload_restores set state = @state, finished_at_ms = @finishedAtMs, error_code = @errorCode, restored_messages = @restoredMessages,
             restored_bytes = @restoredBytes, skipped = @skipped, backup_sha256 = coalesce(@backupSha256, backup_sha256) where id = @id`,
  record: `select id, task_id as taskId, backup_name as backupName, backup_sha256 as backupSha256, actor, hold, state, started_at_ms as startedAtMs,
             finished_at_ms as finishedAtMs, runner_id as runnerId, restored_messages as restoredMessages, restored_bytes as restoredBytes,
             skipped, error_code as errorCode from payload_restores`,
  interrupt: `update payload_restores set state = 'failed', error_code = 'interrupted', finished_at_ms = ? where state = 'running'`,
} as const;

type RawRecord = Omit<RestoreRecord, "hold"> & { hold: number };
const toRecord = (row: RawRecord | undefined): RestoreRecord | null => (row ? { ...row, hold: row.hold === 1 } : null);

type RawRow = { rowid: number; id: string; type: string; metadata: unknown; updatedAt: string | null };

function currentRow(sqlite: Sqlite, row: RawRow): CurrentRow {
  const { metadata, ...rest } = row;
  if (typeof metadata !== "string") return { ...rest, metadata: null, encoding: "utf8" };
  if (!metadata.includes("\ufffd")) return { ...rest, metadata, encoding: "utf8" };
  const raw = statement(sqlite, RESTORE_SQL.rowBytes).get(row.rowid) as { bytes: Buffer } | undefined;
  if (!raw || isUtf8(raw.bytes)) return { ...rest, metadata, encoding: "utf8" };
  return { ...rest, metadata: raw.bytes.toString("latin1"), encoding: "bytes" };
}

export function createSqliteRestoreStore(db: SqliteDb): RestoreStore {
  const record = (where: string) => `${RESTORE_SQL.record} ${where}`;
  return {
    writeTransaction: (fn) => db.transaction(fn),
    taskExists: async (taskId) => statement(db.reading(), RESTORE_SQL.taskExists).get(taskId) !== undefined,
    listSessionIds: async (taskId) => (statement(db.reading(), RESTORE_SQL.sessions).all(taskId) as Array<{ id: string }>).map((row) => row.id),
    listToolRowHeaders: async ({ sessionId, afterRowid, limit }) =>
      (statement(db.reading(), RESTORE_SQL.headers).all(sessionId, afterRowid ?? 0, limit) as Array<Omit<ToolRowHeader, "marked"> & { marked: number }>).map(
        (row) => ({ ...row, marked: row.marked === 1 }),
      ),
    readRows: async (rowids) => {
      const sqlite = db.reading();
      const read = statement(sqlite, RESTORE_SQL.row);
      return rowids.flatMap((rowid) => {
        const row = read.get(rowid) as RawRow | undefined;
        return row ? [currentRow(sqlite, row)] : [];
      });
    },
    restoreRow: (write) =>
      db.write(
        (writer) =>
          statement(writer, RESTORE_SQL.restore).run(
            storedBytes(write.next, write.nextEncoding),
            write.rowid,
            storedBytes(write.observed, write.observedEncoding),
            write.observedUpdatedAt,
          ).changes === 1,
      ),
    insertRecord: (row) =>
      db.write((writer) => {
        statement(writer, RESTORE_SQL.insertRecord).run({ ...row, hold: row.hold ? 1 : 0 });
      }),
    updateProgress: (progress) =>
      db.write((writer) => {
        statement(writer, RESTORE_SQL.progress).run({ backupSha256: null, ...progress });
      }),
    finishRecord: (done) =>
      db.write((writer) => {
        statement(writer, RESTORE_SQL.finish).run({ backupSha256: null, ...done });
      }),
    readRecord: async (id) => toRecord(statement(db.reading(), record("where id = ?")).get(id) as RawRecord | undefined),
    latestRecord: async (taskId) =>
      toRecord(statement(db.reading(), record("indexed by payload_restores_task_idx where task_id = ? order by started_at_ms desc, rowid desc limit 1")).get(taskId) as RawRecord | undefined),
    interruptRunning: (options) => db.write((writer) => statement(writer, RESTORE_SQL.interrupt).run(options.finishedAtMs).changes),
  };
}
