// The streamed export's reads on PostgreSQL (export/export-stream.ts), on
// the read thread's own node-postgres client, in one REPEATABLE READ
// snapshot: the statements of readTaskTree (pg-reads.ts), with messages in
// keyset pages by rowid and their stored size (octet_length: no detoasting).
// No "server-only": the read thread bundles this module.
import type { Client } from "pg";
import type { ExportReads } from "./export/export-stream";

export function pgExportReads(client: Client): ExportReads {
  const rows = async <T>(sql: string, params: unknown[]): Promise<T> => (await client.query(sql, params)).rows as T;
  return {
    begin: async () => {
      await client.query("begin isolation level repeatable read read only");
    },
    end: async () => {
      await client.query("commit");
    },
    task: async (taskId) =>
      (
        await rows<never[]>(
          `select id, title, state, created_at as "createdAt", updated_at as "updatedAt", queued_for_step as "queuedForStep" from tasks where id = $1`,
          [taskId],
        )
      )[0] ?? null,
    hold: async (taskId) => (await rows<never[]>(`select held_at as "heldAt", held_by as "heldBy" from task_holds where task_id = $1`, [taskId]))[0] ?? null,
    sessions: (taskId) =>
      rows(`select id, state, started_at as "startedAt", updated_at as "updatedAt", completed_at as "completedAt" from task_sessions where task_id = $1 order by seq`, [taskId]),
    turns: (sessionId) => rows(`select id, started_at as "startedAt", completed_at as "completedAt" from turns where session_id = $1 order by seq`, [sessionId]),
    queued: (sessionId) => rows(`select id, content, queued_at as "queuedAt" from queued_messages where session_id = $1 order by seq`, [sessionId]),
    runs: (sessionId) => rows(`select id, state from runs where session_id = $1 order by seq`, [sessionId]),
    messageSizes: async (sessionId, afterSeq, limit) =>
      (
        await rows<{ seq: string; bytes: string }[]>(
          `select rowid as seq, octet_length(metadata) + octet_length(content) as bytes from messages where session_id = $1 and rowid > $2 order by rowid limit $3`,
          [sessionId, afterSeq, limit],
        )
      ).map((r) => ({ seq: Number(r.seq), bytes: Number(r.bytes) })),
    messages: (sessionId, afterSeq, throughSeq) =>
      rows(
        `select id, turn_id as "turnId", author_type as "authorType", type, content, metadata, created_at as "createdAt", updated_at as "updatedAt"
         from messages where session_id = $1 and rowid > $2 and rowid <= $3 order by rowid`,
        [sessionId, afterSeq, throughSeq],
      ),
  };
}
