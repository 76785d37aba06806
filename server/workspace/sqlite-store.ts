// The SQLite implementation of the WorkspaceStore: writes, the message JSON
// checks (SQLite's json1 reads metadata natively, never through JSON.parse)
// and the transaction mechanics. Reads live in sqlite-reads.ts. Statements
// come from the per-connection cache, so a store is cheap to create per
// request and an import prepares each statement once.
//
// Writes go through the database's writer queue (at once inside a
// transaction of it); reads use the connection `reading()` names (the writer
// inside a transaction, which sees its own rows; the read connection
// otherwise). Each verb runs its statements in one synchronous step.
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import { guardMetadataWrite, type ToolCallRows } from "@/server/compaction/write-guard/write-guard";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { RECORD_TABLES, type StoredMessage, type WorkspaceStore } from "./store";
import { listConversationRows, listTasks, readTaskHeader, readTaskTree } from "./sqlite-reads";
import { stampOptional, stampRequired } from "./timestamps";

export function createSqliteWorkspaceStore(db: SqliteDb): WorkspaceStore {
  // The replacement-write guard reads tool-call rows through compaction's own
  // store, on the connection this moment's reads use.
  const toolCallRows: ToolCallRows = createSqliteCompactionStore(db);
  const read = async <T>(fn: (sqlite: SqliteDb["writer"]) => T): Promise<T> => fn(db.reading());

  const store: WorkspaceStore = {
    writeTransaction: (fn) => db.transaction(() => fn(store)),

    recordExists: (kind, id) => read((sqlite) => statement(sqlite, `select 1 from ${RECORD_TABLES[kind]} where id = ?`).get(id) !== undefined),

    insertTask: (task) =>
      db.write((sqlite) => {
        const created = stampRequired(task.createdAt);
        const updated = stampRequired(task.updatedAt);
        statement(
          sqlite,
          `insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step)
           values (?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(task.id, task.title, task.state, created.text, created.ms, updated.text, updated.ms, task.queuedForStep ? 1 : 0);
      }),

    insertSession: (session) =>
      db.write((sqlite) => {
        const started = stampOptional(session.startedAt);
        const updated = stampRequired(session.updatedAt);
        const completed = stampOptional(session.completedAt);
        statement(
          sqlite,
          `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(session.id, session.taskId, session.state, started.text, started.ms, updated.text, updated.ms, completed.text, completed.ms);
      }),

    insertTurn: (turn) =>
      db.write((sqlite) => {
        const started = stampRequired(turn.startedAt);
        const completed = stampOptional(turn.completedAt);
        statement(
          sqlite,
          `insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?)`,
        ).run(turn.id, turn.sessionId, started.text, started.ms, completed.text, completed.ms);
      }),

    insertQueuedMessage: (queued) =>
      db.write((sqlite) => {
        const at = stampRequired(queued.queuedAt);
        statement(
          sqlite,
          `insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values (?, ?, ?, ?, ?)`,
        ).run(queued.id, queued.sessionId, queued.content, at.text, at.ms);
      }),

    insertRun: (run) =>
      db.write((sqlite) => {
        statement(sqlite, `insert into runs (id, session_id, state) values (?, ?, ?)`).run(run.id, run.sessionId, run.state);
      }),

    insertHold: (hold) =>
      db.write((sqlite) => {
        const at = stampRequired(hold.heldAt);
        statement(sqlite, `insert into task_holds (task_id, held_at, held_at_ms, held_by) values (?, ?, ?, ?)`).run(hold.taskId, at.text, at.ms, hold.heldBy);
      }),

    sessionOfTurn: (turnId) =>
      read((sqlite) => {
        const row = statement(sqlite, `select session_id from turns where id = ?`).get(turnId) as { session_id: string } | undefined;
        return row?.session_id ?? null;
      }),

    insertMessage: (m) =>
      db.write((sqlite) => {
        const created = stampRequired(m.createdAt);
        const updated = stampRequired(m.updatedAt);
        const info = statement(
          sqlite,
          `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id,
             created_at, created_at_ms, updated_at, updated_at_ms)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(m.id, m.sessionId, m.turnId, m.authorType, m.type, m.content, m.metadata, m.toolCallId, created.text, created.ms, updated.text, updated.ms);
        return { rowid: Number(info.lastInsertRowid) };
      }),

    readMessage: (messageId) =>
      read((sqlite) => {
        const row = statement(sqlite, `select rowid, session_id as sessionId, type, metadata from messages where id = ?`).get(messageId) as
          | StoredMessage
          | undefined;
        return row ?? null;
      }),

    updateMessage: (update) =>
      db.write((sqlite) => {
        const updated = stampRequired(update.updatedAt);
        statement(
          sqlite,
          `update messages set metadata = ?, tool_call_id = ?, content = coalesce(?, content), updated_at = ?, updated_at_ms = ?
           where rowid = ?`,
        ).run(update.metadata, update.toolCallId, update.content, updated.text, updated.ms, update.rowid);
      }),

    canonicalJsonObject: (text) =>
      read((sqlite) => {
        const row = statement(sqlite, `select case when json_valid(@m) and json_type(@m) = 'object' then json(@m) end as text`).get({ m: text }) as {
          text: string | null;
        };
        return row.text;
      }),

    toolCallIdOf: (metadata) =>
      read((sqlite) => {
        const row = statement(sqlite, `select case when json_type(@m, '$.tool_call_id') = 'text' then json_extract(@m, '$.tool_call_id') end as id`).get({
          m: metadata,
        }) as { id: string | null };
        return row.id;
      }),

    // The guard is the compaction domain's; it reads the rows it needs through the current connection.
    guardMetadata: (write) => guardMetadataWrite(toolCallRows, write),

    // The page and the total from one snapshot.
    listTasks: (page) => read((sqlite) => sqlite.transaction(() => listTasks(sqlite, page)).deferred()),
    readTaskHeader: (taskId) => read((sqlite) => readTaskHeader(sqlite, taskId)),
    listConversationRows: (taskId, limit) => read((sqlite) => listConversationRows(sqlite, taskId, limit)),
    // One read transaction (a savepoint inside a writer transaction) so the tree is a consistent snapshot.
    readTaskTree: (taskId) => read((sqlite) => sqlite.transaction(() => readTaskTree(sqlite, taskId)).deferred()),
  };
  return store;
}
