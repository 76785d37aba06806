// The PostgreSQL implementation of the WorkspaceStore, on the node-postgres
// pool (server/db/pg/pg-db.ts). Metadata is stored as text exactly as the
// domain passes it; the JSON checks SQLite runs in json1 run here on the
// span scanner (metadata-fields.ts), which never reorders keys or rewrites
// numbers. Reads live in pg-reads.ts.
import type { PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import { guardMetadataWrite, type ToolCallRows } from "@/server/compaction/write-guard/write-guard";
import { canonicalJsonObject, toolCallIdOf } from "./metadata-fields";
import { listConversationRows, listTasks, readTaskHeader, readTaskTree } from "./pg-reads";
import { RECORD_TABLES, type StoredMessage, type WorkspaceStore } from "./store";
import { stampOptional, stampRequired } from "./timestamps";

/** The rows the replacement-write guard reads (the same statement as compaction's SQLite store; strpos for instr). */
function toolCallRows(db: PgDb): ToolCallRows {
  return {
    listToolCallMetadata: async ({ sessionId, toolCallId, containing }) =>
      (
        await db.query<{ metadata: string }>(
          `select m.metadata from task_sessions s
             join task_sessions peer on peer.task_id = s.task_id
             join messages m on m.session_id = peer.id and m.tool_call_id = $1
           where s.id = $2 and strpos(m.metadata, $3) > 0`,
          [toolCallId, sessionId, containing],
        )
      ).map((row) => row.metadata),
  };
}

export function createPgWorkspaceStore(db: PgDb): WorkspaceStore {
  const rows = toolCallRows(db);

  const store: WorkspaceStore = {
    writeTransaction: (fn) => writerTransaction(db, "workspace", () => fn(store)),

    recordExists: async (kind, id) => (await db.one(`select 1 from ${RECORD_TABLES[kind]} where id = $1`, [id])) !== null,

    async insertTask(task) {
      const created = stampRequired(task.createdAt);
      const updated = stampRequired(task.updatedAt);
      await db.run(
        `insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [task.id, task.title, task.state, created.text, created.ms, updated.text, updated.ms, task.queuedForStep],
      );
    },

    async insertSession(session) {
      const started = stampOptional(session.startedAt);
      const updated = stampRequired(session.updatedAt);
      const completed = stampOptional(session.completedAt);
      await db.run(
        `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [session.id, session.taskId, session.state, started.text, started.ms, updated.text, updated.ms, completed.text, completed.ms],
      );
    },

    async insertTurn(turn) {
      const started = stampRequired(turn.startedAt);
      const completed = stampOptional(turn.completedAt);
      await db.run(`insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values ($1, $2, $3, $4, $5, $6)`, [
        turn.id,
        turn.sessionId,
        started.text,
        started.ms,
        completed.text,
        completed.ms,
      ]);
    },

    async insertQueuedMessage(queued) {
      const at = stampRequired(queued.queuedAt);
      await db.run(`insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values ($1, $2, $3, $4, $5)`, [
        queued.id,
        queued.sessionId,
        queued.content,
        at.text,
        at.ms,
      ]);
    },

    async insertRun(run) {
      await db.run(`insert into runs (id, session_id, state) values ($1, $2, $3)`, [run.id, run.sessionId, run.state]);
    },

    async insertHold(hold) {
      const at = stampRequired(hold.heldAt);
      await db.run(`insert into task_holds (task_id, held_at, held_at_ms, held_by) values ($1, $2, $3, $4)`, [hold.taskId, at.text, at.ms, hold.heldBy]);
    },

    sessionOfTurn: async (turnId) => (await db.one<{ session_id: string }>(`select session_id from turns where id = $1`, [turnId]))?.session_id ?? null,

    async insertMessage(m) {
      const created = stampRequired(m.createdAt);
      const updated = stampRequired(m.updatedAt);
      const row = await db.one<{ rowid: number }>(
        `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id,
           created_at, created_at_ms, updated_at, updated_at_ms)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning rowid`,
        [m.id, m.sessionId, m.turnId, m.authorType, m.type, m.content, m.metadata, m.toolCallId, created.text, created.ms, updated.text, updated.ms],
      );
      return { rowid: row!.rowid };
    },

    readMessage: (messageId) => db.one<StoredMessage>(`select rowid, session_id as "sessionId", type, metadata from messages where id = $1`, [messageId]),

    async updateMessage(update) {
      const updated = stampRequired(update.updatedAt);
      await db.run(
        `update messages set metadata = $1, tool_call_id = $2, content = coalesce($3, content), updated_at = $4, updated_at_ms = $5
         where rowid = $6`,
        [update.metadata, update.toolCallId, update.content, updated.text, updated.ms, update.rowid],
      );
    },

    canonicalJsonObject: async (text) => canonicalJsonObject(text),
    toolCallIdOf: async (metadata) => toolCallIdOf(metadata),

    // The guard is the compaction domain's; it reads the rows it needs in the current transaction.
    guardMetadata: (write) => guardMetadataWrite(rows, write),

    listTasks: (page) => listTasks(db, page),
    readTaskHeader: (taskId) => readTaskHeader(db, taskId),
    listConversationRows: (taskId, limit) => listConversationRows(db, taskId, limit),
    // Inside a writer transaction the tree is read there; otherwise one repeatable-read snapshot.
    readTaskTree: (taskId) => (db.inTransaction() ? readTaskTree(db, taskId) : db.transaction(() => readTaskTree(db, taskId), { snapshot: true })),
  };
  return store;
}
