// The PostgreSQL implementation of the WorkspaceStore, through the
// synchronous client (server/db/pg). Metadata is stored as text exactly as
// the domain passes it; the JSON checks SQLite runs in json1 run here on the
// span scanner (metadata-fields.ts), which never reorders keys or rewrites
// numbers. Reads live in pg-reads.ts.
import type { SqlClient } from "@/server/db/pg/client";
import { inWriterTransaction } from "@/server/db/pg/writer-lock";
import { guardMetadataWrite, type ToolCallRows } from "@/server/compaction/write-guard/write-guard";
import { canonicalJsonObject, toolCallIdOf } from "./metadata-fields";
import { listConversationRows, listTasks, readTaskHeader, readTaskTree } from "./pg-reads";
import { RECORD_TABLES, type StoredMessage, type WorkspaceStore } from "./store";
import { stampOptional, stampRequired } from "./timestamps";

/** The rows the replacement-write guard reads (the same statement as compaction's SQLite store; strpos for instr). */
function toolCallRows(client: SqlClient): ToolCallRows {
  return {
    listToolCallMetadata: ({ sessionId, toolCallId, containing }) =>
      client
        .query<{ metadata: string }>(
          `select m.metadata from task_sessions s
             join task_sessions peer on peer.task_id = s.task_id
             join messages m on m.session_id = peer.id and m.tool_call_id = $1
           where s.id = $2 and strpos(m.metadata, $3) > 0`,
          [toolCallId, sessionId, containing],
        )
        .map((row) => row.metadata),
  };
}

export function createPgWorkspaceStore(client: SqlClient): WorkspaceStore {
  const rows = toolCallRows(client);

  const store: WorkspaceStore = {
    writeTransaction: (fn) => inWriterTransaction(client, "workspace", () => fn(store)),

    recordExists: (kind, id) => client.one(`select 1 from ${RECORD_TABLES[kind]} where id = $1`, [id]) !== null,

    insertTask(task) {
      const created = stampRequired(task.createdAt);
      const updated = stampRequired(task.updatedAt);
      client.run(
        `insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [task.id, task.title, task.state, created.text, created.ms, updated.text, updated.ms, task.queuedForStep],
      );
    },

    insertSession(session) {
      const started = stampOptional(session.startedAt);
      const updated = stampRequired(session.updatedAt);
      const completed = stampOptional(session.completedAt);
      client.run(
        `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [session.id, session.taskId, session.state, started.text, started.ms, updated.text, updated.ms, completed.text, completed.ms],
      );
    },

    insertTurn(turn) {
      const started = stampRequired(turn.startedAt);
      const completed = stampOptional(turn.completedAt);
      client.run(`insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values ($1, $2, $3, $4, $5, $6)`, [
        turn.id,
        turn.sessionId,
        started.text,
        started.ms,
        completed.text,
        completed.ms,
      ]);
    },

    insertQueuedMessage(queued) {
      const at = stampRequired(queued.queuedAt);
      client.run(`insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values ($1, $2, $3, $4, $5)`, [
        queued.id,
        queued.sessionId,
        queued.content,
        at.text,
        at.ms,
      ]);
    },

    insertRun(run) {
      client.run(`insert into runs (id, session_id, state) values ($1, $2, $3)`, [run.id, run.sessionId, run.state]);
    },

    sessionOfTurn: (turnId) => client.one<{ session_id: string }>(`select session_id from turns where id = $1`, [turnId])?.session_id ?? null,

    insertMessage(m) {
      const created = stampRequired(m.createdAt);
      const updated = stampRequired(m.updatedAt);
      const row = client.one<{ rowid: number }>(
        `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id,
           created_at, created_at_ms, updated_at, updated_at_ms)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning rowid`,
        [m.id, m.sessionId, m.turnId, m.authorType, m.type, m.content, m.metadata, m.toolCallId, created.text, created.ms, updated.text, updated.ms],
      );
      return { rowid: row!.rowid };
    },

    readMessage: (messageId) =>
      client.one<StoredMessage>(`select rowid, session_id as "sessionId", type, metadata from messages where id = $1`, [messageId]),

    updateMessage(update) {
      const updated = stampRequired(update.updatedAt);
      client.run(
        `update messages set metadata = $1, tool_call_id = $2, content = coalesce($3, content), updated_at = $4, updated_at_ms = $5
         where rowid = $6`,
        [update.metadata, update.toolCallId, update.content, updated.text, updated.ms, update.rowid],
      );
    },

    canonicalJsonObject,
    toolCallIdOf,

    // The guard is the compaction domain's; it reads the rows it needs through this connection.
    guardMetadata: (write) => guardMetadataWrite(rows, write),

    listTasks: (page) => listTasks(client, page),
    readTaskHeader: (taskId) => readTaskHeader(client, taskId),
    listConversationRows: (taskId, limit) => listConversationRows(client, taskId, limit),
    // Inside a writer transaction the tree is read there; otherwise one repeatable-read snapshot.
    readTaskTree: (taskId) => (client.inTransaction ? readTaskTree(client, taskId) : client.transaction(() => readTaskTree(client, taskId), { snapshot: true })),
  };
  return store;
}
