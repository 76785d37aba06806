// The SQLite implementation of the WorkspaceStore: writes, the message JSON
// checks (SQLite's json1 reads metadata natively, never through JSON.parse)
// and the transaction mechanics. Reads live in sqlite-reads.ts. Statements
// come from the per-connection cache, so a store is cheap to create per
// request and an import prepares each statement once.
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import { guardMetadataWrite } from "@/server/compaction/write-guard/write-guard";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { RECORD_TABLES, type StoredMessage, type WorkspaceStore } from "./store";
import { listConversationRows, listTasks, readTaskHeader, readTaskTree } from "./sqlite-reads";
import { stampOptional, stampRequired } from "./timestamps";

export function createSqliteWorkspaceStore(sqlite: Sqlite): WorkspaceStore {
  // The replacement-write guard reads tool-call rows through compaction's own store.
  const compaction = createSqliteCompactionStore(sqlite);
  // Nested calls become savepoints of the outer transaction.
  const inTransaction = sqlite.transaction((fn: (tx: WorkspaceStore) => unknown) => fn(store));

  const store: WorkspaceStore = {
    writeTransaction: <T>(fn: (tx: WorkspaceStore) => T): T => inTransaction.immediate(fn) as T,

    recordExists: (kind, id) => statement(sqlite, `select 1 from ${RECORD_TABLES[kind]} where id = ?`).get(id) !== undefined,

    insertTask(task) {
      const created = stampRequired(task.createdAt);
      const updated = stampRequired(task.updatedAt);
      statement(
        sqlite,
        `insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step)
         values (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(task.id, task.title, task.state, created.text, created.ms, updated.text, updated.ms, task.queuedForStep ? 1 : 0);
    },

    insertSession(session) {
      const started = stampOptional(session.startedAt);
      const updated = stampRequired(session.updatedAt);
      const completed = stampOptional(session.completedAt);
      statement(
        sqlite,
        `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(session.id, session.taskId, session.state, started.text, started.ms, updated.text, updated.ms, completed.text, completed.ms);
    },

    insertTurn(turn) {
      const started = stampRequired(turn.startedAt);
      const completed = stampOptional(turn.completedAt);
      statement(
        sqlite,
        `insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?)`,
      ).run(turn.id, turn.sessionId, started.text, started.ms, completed.text, completed.ms);
    },

    insertQueuedMessage(queued) {
      const at = stampRequired(queued.queuedAt);
      statement(
        sqlite,
        `insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values (?, ?, ?, ?, ?)`,
      ).run(queued.id, queued.sessionId, queued.content, at.text, at.ms);
    },

    insertRun(run) {
      statement(sqlite, `insert into runs (id, session_id, state) values (?, ?, ?)`).run(run.id, run.sessionId, run.state);
    },

    sessionOfTurn(turnId) {
      const row = statement(sqlite, `select session_id from turns where id = ?`).get(turnId) as { session_id: string } | undefined;
      return row?.session_id ?? null;
    },

    insertMessage(m) {
      const created = stampRequired(m.createdAt);
      const updated = stampRequired(m.updatedAt);
      const info = statement(
        sqlite,
        `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id,
           created_at, created_at_ms, updated_at, updated_at_ms)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(m.id, m.sessionId, m.turnId, m.authorType, m.type, m.content, m.metadata, m.toolCallId, created.text, created.ms, updated.text, updated.ms);
      return { rowid: Number(info.lastInsertRowid) };
    },

    readMessage(messageId) {
      const row = statement(sqlite, `select rowid, session_id as sessionId, type, metadata from messages where id = ?`).get(messageId) as
        | StoredMessage
        | undefined;
      return row ?? null;
    },

    updateMessage(update) {
      const updated = stampRequired(update.updatedAt);
      statement(
        sqlite,
        `update messages set metadata = ?, tool_call_id = ?, content = coalesce(?, content), updated_at = ?, updated_at_ms = ?
         where rowid = ?`,
      ).run(update.metadata, update.toolCallId, update.content, updated.text, updated.ms, update.rowid);
    },

    canonicalJsonObject(text) {
      const row = statement(
        sqlite,
        `select case when json_valid(@m) and json_type(@m) = 'object' then json(@m) end as text`,
      ).get({ m: text }) as { text: string | null };
      return row.text;
    },

    toolCallIdOf(metadata) {
      const row = statement(
        sqlite,
        `select case when json_type(@m, '$.tool_call_id') = 'text' then json_extract(@m, '$.tool_call_id') end as id`,
      ).get({ m: metadata }) as { id: string | null };
      return row.id;
    },

    // The guard is the compaction domain's; it reads the rows it needs through this connection.
    guardMetadata: (write) => guardMetadataWrite(compaction, write),

    listTasks: (page) => listTasks(sqlite, page),
    readTaskHeader: (taskId) => readTaskHeader(sqlite, taskId),
    listConversationRows: (taskId, limit) => listConversationRows(sqlite, taskId, limit),
    // One read transaction so the tree is a consistent snapshot.
    readTaskTree: (taskId) => sqlite.transaction(() => readTaskTree(sqlite, taskId)).deferred(),
  };
  return store;
}
