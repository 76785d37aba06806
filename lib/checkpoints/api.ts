// Thread API shapes (shared by client and server).
import { z } from "zod";

export const HISTORY_LIMIT_MAX = 100;

export const threadIdParams = z.strictObject({ id: z.string().min(1).max(200) });

export const runRequest = z.strictObject({
  input: z.strictObject({ content: z.string().min(1).max(100_000) }),
  checkpointId: z.string().min(1).max(200).optional(),
});

export const messageIdRequest = z.strictObject({ messageId: z.string().min(1).max(200) });

/** Any non-negative integer; the route clamps it to HISTORY_LIMIT_MAX. */
export const historyRequest = z.strictObject({ limit: z.number().int().min(0).optional() });

export const threadMessage = z.object({ id: z.string(), type: z.enum(["human", "ai", "tool"]), content: z.string() });
export type ThreadMessage = z.infer<typeof threadMessage>;

export const threadValues = z.object({ messages: z.array(threadMessage), title: z.string().nullable() });
export type ThreadValues = z.infer<typeof threadValues>;

export const threadState = z.object({
  threadId: z.string(),
  checkpointId: z.string(),
  values: threadValues,
  next: z.array(z.string()),
});
export type ThreadState = z.infer<typeof threadState>;

export const historyItem = z.object({
  checkpointId: z.string(),
  parentCheckpointId: z.string().nullable(),
  createdAt: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  values: threadValues,
});
export type HistoryItem = z.infer<typeof historyItem>;

export const runResponse = z.object({
  runId: z.string(),
  status: z.enum(["success", "cancelled", "error"]),
  checkpointId: z.string().nullable(),
});
export type RunResponse = z.infer<typeof runResponse>;

export const threadCreated = z.object({ threadId: z.string() });
