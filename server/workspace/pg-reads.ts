// Read statements of the PostgreSQL WorkspaceStore (pg-store.ts), the same
// answers as sqlite-reads.ts. Ids sort with the "C" collation (bytewise,
// like SQLite) whatever the database's locale; insertion order is `seq`
// (SQLite's rowid). Tool summaries are read from the metadata text with the
// span scanner (metadata-fields.ts): the column is text, never jsonb.
import type { SqlClient } from "@/server/db/pg/client";
import { toolSummaryFields } from "./metadata-fields";
import type { ConversationRow, TaskHeader, TaskListRow, TaskTree } from "./store";

export function listTasks(client: SqlClient, page: { limit: number; offset: number }): { tasks: TaskListRow[]; total: number } {
  const tasks = client.query<TaskListRow>(
    `select t.id, t.title, t.state, t.updated_at as "updatedAt",
       (select count(*) from messages m join task_sessions s on s.id = m.session_id where s.task_id = t.id) as "messageCount"
     from tasks t order by coalesce(t.updated_at_ms, 0) desc, t.id collate "C" limit $1 offset $2`,
    [page.limit, page.offset],
  );
  const { total } = client.one<{ total: number }>(`select count(*) as total from tasks`)!;
  return { tasks, total };
}

export function readTaskHeader(client: SqlClient, taskId: string): TaskHeader | null {
  return client.one<TaskHeader>(`select id, title, state, created_at as "createdAt", updated_at as "updatedAt" from tasks where id = $1`, [taskId]);
}

type StoredConversationRow = Omit<ConversationRow, "kind" | "title" | "command" | "exitCode" | "markerType" | "removedAt"> & { metadata: string };

export function listConversationRows(client: SqlClient, taskId: string, limit: number): ConversationRow[] {
  const rows = client.query<StoredConversationRow>(
    `select m.id, m.session_id as "sessionId", m.type, m.author_type as "authorType", m.content, m.created_at as "createdAt", m.metadata
     from messages m join task_sessions s on s.id = m.session_id
     where s.task_id = $1
     order by coalesce(s.started_at_ms, 0), s.id collate "C", coalesce(m.created_at_ms, 0), m.rowid
     limit $2`,
    [taskId, limit],
  );
  return rows.map(({ metadata, ...row }) => ({ ...row, ...toolSummaryFields(metadata) }));
}

type TreeSession = TaskTree["sessions"][number];

function readSession(client: SqlClient, session: Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">): TreeSession {
  const turns = client.query<TreeSession["turns"][number]>(
    `select id, started_at as "startedAt", completed_at as "completedAt" from turns where session_id = $1 order by seq`,
    [session.id],
  );
  const messages = client.query<TreeSession["messages"][number]>(
    `select id, turn_id as "turnId", author_type as "authorType", type, content, metadata, created_at as "createdAt", updated_at as "updatedAt"
     from messages where session_id = $1 order by rowid`,
    [session.id],
  );
  const queuedMessages = client.query<TreeSession["queuedMessages"][number]>(
    `select id, content, queued_at as "queuedAt" from queued_messages where session_id = $1 order by seq`,
    [session.id],
  );
  const runs = client.query<TreeSession["runs"][number]>(`select id, state from runs where session_id = $1 order by seq`, [session.id]);
  return { ...session, turns, messages, queuedMessages, runs };
}

/** Call inside a snapshot transaction: the caller wants one consistent tree. */
export function readTaskTree(client: SqlClient, taskId: string): TaskTree | null {
  const task = client.one<TaskTree["task"]>(
    `select id, title, state, created_at as "createdAt", updated_at as "updatedAt", queued_for_step as "queuedForStep" from tasks where id = $1`,
    [taskId],
  );
  if (!task) return null;
  const sessions = client.query<Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">>(
    `select id, state, started_at as "startedAt", updated_at as "updatedAt", completed_at as "completedAt"
     from task_sessions where task_id = $1 order by seq`,
    [taskId],
  );
  return { task, sessions: sessions.map((session) => readSession(client, session)) };
}
