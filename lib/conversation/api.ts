// Shapes of the read-only conversation view: GET /api/v1/tasks and
// GET /api/v1/tasks/{id}. Messages carry their text and a short tool
// summary; bulky tool output is loaded lazily from the shell-output endpoint.
import { z } from "zod";

export type TaskListItem = { id: string; title: string; state: string; updatedAt: string; messageCount: number };
export type TaskListResponse = { tasks: TaskListItem[]; total: number; limit: number; offset: number };

export type ConversationTool = {
  kind: string | null;
  /** Short label the agent gave the call (metadata.title). */
  title: string | null;
  command: string | null;
  exitCode: number | null;
  /** Set once messages compaction removed the payload (the marker's removed_at). */
  removedAt: string | null;
};

export type ConversationMessage = {
  id: string;
  sessionId: string;
  type: string;
  authorType: string;
  content: string;
  createdAt: string;
  tool: ConversationTool | null;
};

export type TaskConversation = {
  task: { id: string; title: string; state: string; createdAt: string; updatedAt: string };
  messages: ConversationMessage[];
  /** True when the task has more messages than one page shows. */
  truncated: boolean;
};

export type ShellOutputResponse = {
  messageId: string;
  command: string | null;
  workDir: string | null;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
};

export type ShellOutputRemoved = {
  error: { code: "tool_payload_removed"; message: string };
  removedAt: string | null;
  summary: { command: string | null; workDir: string | null; exitCode: number | null; truncated: boolean; removedFields: string[] };
};

export const taskListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const MESSAGE_PAGE_LIMIT = 1000;

export function shellOutputUrl(messageId: string): string {
  return `/api/v1/messages/${encodeURIComponent(messageId)}/shell-output`;
}

export function taskUrl(taskId: string): string {
  return `/api/v1/tasks/${encodeURIComponent(taskId)}`;
}
