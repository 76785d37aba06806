// The streamed export's reads on SQLite (export/export-stream.ts), on the
// read thread's own read-only connection: the statements of readTaskTree
// (sqlite-reads.ts), with messages in keyset pages by rowid and their stored
// size from the record header (octet_length reads no overflow page).
// No "server-only": the read thread bundles this module.
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { ExportReads } from "./export/export-stream";

export function sqliteExportReads(sqlite: Sqlite): ExportReads {
  return {
    begin: async () => {
      sqlite.exec("begin");
    },
    end: async () => {
      if (sqlite.inTransaction) sqlite.exec("commit");
    },
    task: async (taskId) => {
      const row = statement(
        sqlite,
        `select id, title, state, created_at as createdAt, updated_at as updatedAt, queued_for_step as queuedForStep from tasks where id = ?`,
      ).get(taskId) as ({ queuedForStep: number } & Record<string, unknown>) | undefined;
      return row ? ({ ...row, queuedForStep: row.queuedForStep === 1 } as never) : null;
    },
    hold: async (taskId) =>
      (statement(sqlite, `select held_at as heldAt, held_by as heldBy from task_holds where task_id = ?`).get(taskId) as never) ?? null,
    sessions: async (taskId) =>
      statement(
        sqlite,
        `select id, state, started_at as startedAt, updated_at as updatedAt, completed_at as completedAt from task_sessions where task_id = ? order by rowid`,
      ).all(taskId) as never,
    turns: async (sessionId) =>
      statement(sqlite, `select id, started_at as startedAt, completed_at as completedAt from turns where session_id = ? order by rowid`).all(sessionId) as never,
    queued: async (sessionId) =>
      statement(sqlite, `select id, content, queued_at as queuedAt from queued_messages where session_id = ? order by rowid`).all(sessionId) as never,
    runs: async (sessionId) => statement(sqlite, `select id, state from runs where session_id = ? order by rowid`).all(sessionId) as never,
    messageSizes: async (sessionId, afterSeq, limit) =>
      statement(
        sqlite,
        `select rowid as seq, octet_length(metadata) + octet_length(content) as bytes from messages where session_id = ? and rowid > ? order by rowid limit ?`,
      ).all(sessionId, afterSeq, limit) as never,
    messages: async (sessionId, afterSeq, throughSeq) =>
      statement(
        sqlite,
        `select id, turn_id as turnId, author_type as authorType, type, content, metadata, created_at as createdAt, updated_at as updatedAt
         from messages where session_id = ? and rowid > ? and rowid <= ? order by rowid`,
      ).all(sessionId, afterSeq, throughSeq) as never,
  };
}
