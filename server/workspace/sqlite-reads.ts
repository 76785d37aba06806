// Read statements of the SQLite WorkspaceStore (sqlite-store.ts). Tool
// summaries are pulled with SQLite's json_extract, so no payload body crosses
// into JavaScript and stored metadata is never JSON.parse'd; invalid stored
// JSON yields no summary (fail closed).
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { ConversationRow, TaskHeader, TaskListRow, TaskTree } from "./store";

const LIST_SQL = `select t.id, t.title, t.state, t.updated_at as updatedAt,
  (select count(*) from messages m where m.session_id in (select s.id from task_sessions s where s.task_id = t.id)) as messageCount
 from tasks t order by coalesce(t.updated_at_ms, 0) desc, t.id limit ? offset ?`;

export function listTasks(sqlite: Sqlite, page: { limit: number; offset: number }): { tasks: TaskListRow[]; total: number } {
  const tasks = statement(sqlite, LIST_SQL).all(page.limit, page.offset) as TaskListRow[];
  const { total } = statement(sqlite, "select count(*) as total from tasks").get() as { total: number };
  return { tasks, total };
}

export function readTaskHeader(sqlite: Sqlite, taskId: string): TaskHeader | null {
  const task = statement(sqlite, "select id, title, state, created_at as createdAt, updated_at as updatedAt from tasks where id = ?").get(taskId) as
    | TaskHeader
    | undefined;
  return task ?? null;
}

const CONVERSATION_SQL = `select m.id, m.session_id as sessionId, m.type, m.author_type as authorType, m.content, m.created_at as createdAt,
  case when json_valid(m.metadata) then json_extract(m.metadata, '$.normalized.kind') end as kind,
  case when json_valid(m.metadata) then json_extract(m.metadata, '$.title') end as title,
  case when json_valid(m.metadata) then json_extract(m.metadata, '$.normalized.shell_exec.command') end as command,
  case when json_valid(m.metadata) then json_extract(m.metadata, '$.normalized.shell_exec.output.exit_code') end as exitCode,
  case when json_valid(m.metadata) then json_type(m.metadata, '$.payload_retention') end as markerType,
  case when json_valid(m.metadata) then json_extract(m.metadata, '$.payload_retention.removed_at') end as removedAt
 from messages m join task_sessions s on s.id = m.session_id
 where s.task_id = ?
 order by coalesce(s.started_at_ms, 0), s.id, coalesce(m.created_at_ms, 0), m.rowid
 limit ?`;

export function listConversationRows(sqlite: Sqlite, taskId: string, limit: number): ConversationRow[] {
  return statement(sqlite, CONVERSATION_SQL).all(taskId, limit) as ConversationRow[];
}

type TreeSession = TaskTree["sessions"][number];

function readSession(sqlite: Sqlite, session: Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">): TreeSession {
  const turns = statement(
    sqlite,
    `select id, started_at as startedAt, completed_at as completedAt from turns where session_id = ? order by rowid`,
  ).all(session.id) as TreeSession["turns"];
  const messages = statement(
    sqlite,
    `select id, turn_id as turnId, author_type as authorType, type, content, metadata, created_at as createdAt, updated_at as updatedAt
     from messages where session_id = ? order by rowid`,
  ).all(session.id) as TreeSession["messages"];
  const queuedMessages = statement(
    sqlite,
    `select id, content, queued_at as queuedAt from queued_messages where session_id = ? order by rowid`,
  ).all(session.id) as TreeSession["queuedMessages"];
  const runs = statement(sqlite, `select id, state from runs where session_id = ? order by rowid`).all(session.id) as TreeSession["runs"];
  return { ...session, turns, messages, queuedMessages, runs };
}

/** Call inside a read transaction: the caller wants one snapshot. */
export function readTaskTree(sqlite: Sqlite, taskId: string): TaskTree | null {
  const task = statement(
    sqlite,
    `select id, title, state, created_at as createdAt, updated_at as updatedAt, queued_for_step as queuedForStep from tasks where id = ?`,
  ).get(taskId) as (Omit<TaskTree["task"], "queuedForStep"> & { queuedForStep: number }) | undefined;
  if (!task) return null;
  const sessions = statement(
    sqlite,
    `select id, state, started_at as startedAt, updated_at as updatedAt, completed_at as completedAt
     from task_sessions where task_id = ? order by rowid`,
  ).all(taskId) as Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">[];
  const hold = statement(sqlite, `select held_at as heldAt, held_by as heldBy from task_holds where task_id = ?`).get(taskId) as TaskTree["hold"] | undefined;
  return {
    task: { ...task, queuedForStep: task.queuedForStep === 1 },
    hold: hold ?? null,
    sessions: sessions.map((session) => readSession(sqlite, session)),
  };
}
