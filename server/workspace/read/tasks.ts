import "server-only";
// Read verbs of the conversation view. Tool summaries are pulled with
// SQLite's json_extract (no payload body crosses into JS and no JSON.parse
// on stored metadata); invalid stored JSON yields no summary (fail closed).
import { MESSAGE_PAGE_LIMIT, type ConversationMessage, type TaskConversation, type TaskListResponse } from "@/lib/conversation/api";
import type { Sqlite } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { statement } from "../../db/statements";

const LIST_SQL = `select t.id, t.title, t.state, t.updated_at as updatedAt,
  (select count(*) from messages m where m.session_id in (select s.id from task_sessions s where s.task_id = t.id)) as messageCount
 from tasks t order by coalesce(t.updated_at_ms, 0) desc, t.id limit ? offset ?`;

export function listTasks(sqlite: Sqlite, options: { limit: number; offset: number }): TaskListResponse {
  const tasks = statement(sqlite, LIST_SQL).all(options.limit, options.offset) as TaskListResponse["tasks"];
  const { total } = statement(sqlite, "select count(*) as total from tasks").get() as { total: number };
  return { tasks, total, limit: options.limit, offset: options.offset };
}

const MESSAGES_SQL = `select m.id, m.session_id as sessionId, m.type, m.author_type as authorType, m.content, m.created_at as createdAt,
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

type MessageRow = Omit<ConversationMessage, "tool"> & {
  kind: unknown;
  title: unknown;
  command: unknown;
  exitCode: unknown;
  markerType: string | null;
  removedAt: unknown;
};

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const integer = (value: unknown): number | null => (typeof value === "number" && Number.isSafeInteger(value) ? value : null);

function toMessage(row: MessageRow): ConversationMessage {
  const isTool = row.type.startsWith("tool_");
  const marked = row.markerType !== null;
  return {
    id: row.id,
    sessionId: row.sessionId,
    type: row.type,
    authorType: row.authorType,
    content: row.content,
    createdAt: row.createdAt,
    tool:
      isTool || marked
        ? {
            kind: text(row.kind),
            title: text(row.title),
            command: text(row.command),
            exitCode: integer(row.exitCode),
            // A marker without a readable time still means "removed".
            removedAt: marked ? (text(row.removedAt) ?? "") : null,
          }
        : null,
  };
}

export function readTaskConversation(sqlite: Sqlite, taskId: string): TaskConversation {
  const task = statement(sqlite, "select id, title, state, created_at as createdAt, updated_at as updatedAt from tasks where id = ?").get(taskId) as
    | TaskConversation["task"]
    | undefined;
  if (!task) throw new AppError("not_found", "Task not found");
  const rows = statement(sqlite, MESSAGES_SQL).all(taskId, MESSAGE_PAGE_LIMIT + 1) as MessageRow[];
  const truncated = rows.length > MESSAGE_PAGE_LIMIT;
  return { task, messages: rows.slice(0, MESSAGE_PAGE_LIMIT).map(toMessage), truncated };
}
