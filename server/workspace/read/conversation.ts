// The conversation view's answer (GET /api/v1/tasks/{id}) from a task's header
// and its rows with their tool summaries already extracted (no payload body
// crosses into it and no JSON.parse of stored metadata). Wherever it runs:
// the read thread (connection.ts) or a store in this thread (tasks.ts).
// No "server-only": the read thread bundles this module.
import { MESSAGE_PAGE_LIMIT, type ConversationMessage, type TaskConversation } from "@/lib/conversation/api";
import { AppError } from "@/server/errors";
import type { ConversationRow, TaskHeader } from "../store";

/** Rows to ask for: one past the page tells whether the conversation was cut. */
export const CONVERSATION_ROWS = MESSAGE_PAGE_LIMIT + 1;

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

/** The answer, or AppError not_found for an unknown task. */
export function conversationOf(task: TaskHeader | null, rows: ConversationRow[]): TaskConversation {
  if (!task) throw new AppError("not_found", "Task not found");
  const truncated = rows.length > MESSAGE_PAGE_LIMIT;
  return { task, messages: rows.slice(0, MESSAGE_PAGE_LIMIT).map(toMessage), truncated };
}
