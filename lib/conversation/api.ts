// Shapes of the read-only conversation view: GET /api/v1/tasks and
// GET /api/v1/tasks/{id}. Messages carry their text and a short tool
// summary; bulky tool output is loaded lazily from the shell-output endpoint.
import { z } from "zod";

export const taskListItemSchema = z.object({ id: z.string(), title: z.string(), state: z.string(), updatedAt: z.string(), messageCount: z.number() });
export type TaskListItem = z.infer<typeof taskListItemSchema>;
export const taskListResponseSchema = z.object({ tasks: z.array(taskListItemSchema), total: z.number(), limit: z.number(), offset: z.number() });
export type TaskListResponse = z.infer<typeof taskListResponseSchema>;

export const conversationToolSchema = z.object({
  kind: z.string().nullable(),
  /** Short label the agent gave the call (metadata.title). */
  title: z.string().nullable(),
  command: z.string().nullable(),
  exitCode: z.number().nullable(),
  /** Set once messages compaction removed the payload (the marker's removed_at). */
  removedAt: z.string().nullable(),
});
export type ConversationTool = z.infer<typeof conversationToolSchema>;

export const conversationMessageSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  type: z.string(),
  authorType: z.string(),
  content: z.string(),
  createdAt: z.string(),
  tool: conversationToolSchema.nullable(),
});
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;

export const taskConversationSchema = z.object({
  task: z.object({ id: z.string(), title: z.string(), state: z.string(), createdAt: z.string(), updatedAt: z.string() }),
  messages: z.array(conversationMessageSchema),
  /** True when the task has more messages than one page shows. */
  truncated: z.boolean(),
});
export type TaskConversation = z.infer<typeof taskConversationSchema>;

export const shellOutputResponseSchema = z.object({
  messageId: z.string(),
  command: z.string().nullable(),
  workDir: z.string().nullable(),
  exitCode: z.number().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
});
export type ShellOutputResponse = z.infer<typeof shellOutputResponseSchema>;

/** What survives a compaction of the output, sent with 410 tool_payload_removed. */
export const shellOutputSummarySchema = z.object({
  command: z.string().nullable(),
  workDir: z.string().nullable(),
  exitCode: z.number().nullable(),
  truncated: z.boolean(),
  removedFields: z.array(z.string()),
});

export const shellOutputRemovedSchema = z.object({
  error: z.object({ code: z.literal("tool_payload_removed"), message: z.string() }),
  removedAt: z.string().nullable(),
  summary: shellOutputSummarySchema,
});
export type ShellOutputRemoved = z.infer<typeof shellOutputRemovedSchema>;

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
