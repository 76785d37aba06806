// Fetchers of the read-only conversation view. Each passes the abort signal
// on, checks the answer against its schema and rejects with ApiError.
import { fetchParsed, isApiError } from "@/lib/query/fetch-json";
import {
  shellOutputRemovedSchema,
  shellOutputResponseSchema,
  shellOutputUrl,
  taskConversationSchema,
  taskListResponseSchema,
  taskUrl,
  type ShellOutputRemoved,
  type ShellOutputResponse,
  type TaskConversation,
  type TaskListResponse,
} from "@/lib/conversation/api";

export type ShellOutputState =
  | { kind: "output"; output: ShellOutputResponse }
  | { kind: "removed"; removedAt: string | null; summary: ShellOutputRemoved["summary"] | null };

export function fetchTaskList(offset: number, signal?: AbortSignal): Promise<TaskListResponse> {
  return fetchParsed(taskListResponseSchema, `/api/v1/tasks?limit=50&offset=${offset}`, { signal });
}

export function fetchTaskConversation(taskId: string, signal?: AbortSignal): Promise<TaskConversation> {
  return fetchParsed(taskConversationSchema, taskUrl(taskId), { signal });
}

/** 200 -> the output; 410 tool_payload_removed -> the removal time and retained summary. */
export async function fetchShellOutput(messageId: string, signal?: AbortSignal): Promise<ShellOutputState> {
  try {
    return { kind: "output", output: await fetchParsed(shellOutputResponseSchema, shellOutputUrl(messageId), { signal }) };
  } catch (error) {
    if (isApiError(error) && error.code === "tool_payload_removed") {
      const removed = shellOutputRemovedSchema.partial().safeParse(error.body);
      const body = removed.success ? removed.data : null;
      return { kind: "removed", removedAt: body?.removedAt ?? null, summary: body?.summary ?? null };
    }
    throw error;
  }
}
