import "server-only";
// Read verbs of the conversation view. Tool summaries come out of the store
// already extracted (no payload body crosses into JS and no JSON.parse on
// stored metadata); invalid stored JSON yields no summary (fail closed).
import { MESSAGE_PAGE_LIMIT, type ConversationMessage, type TaskConversation, type TaskListResponse } from "@/lib/conversation/api";
import { AppError } from "@/server/errors";
import type { ConversationRow, WorkspaceStore } from "../store";

export function listTasks(store: WorkspaceStore, options: { limit: number; offset: number }): TaskListResponse {
  const { tasks, total } = store.listTasks(options);
  return { tasks, total, limit: options.limit, offset: options.offset };
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const integer = (value: unknown): number | null => (typeof value === "number" && Number.isSafeInteger(value) ? value : null);

function toMessage(row: ConversationRow): ConversationMessage {
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

export function readTaskConversation(store: WorkspaceStore, taskId: string): TaskConversation {
  const task = store.readTaskHeader(taskId);
  if (!task) throw new AppError("not_found", "Task not found");
  const rows = store.listConversationRows(taskId, MESSAGE_PAGE_LIMIT + 1);
  const truncated = rows.length > MESSAGE_PAGE_LIMIT;
  return { task, messages: rows.slice(0, MESSAGE_PAGE_LIMIT).map(toMessage), truncated };
}
