"use client";
// Conversation view reads. Shell output is loaded lazily per message and
// cached under its own key, so a compaction marker can drop exactly that
// cache entry (TPR-TX-07, see events.ts).
import { useQuery } from "@tanstack/react-query";
import { fetchJson, isApiError } from "@/lib/query/fetch-json";
import {
  shellOutputUrl,
  taskUrl,
  type ShellOutputRemoved,
  type ShellOutputResponse,
  type TaskConversation,
  type TaskListResponse,
} from "./api";

export const conversationKeys = {
  all: ["conversation"] as const,
  tasks: (offset: number) => ["conversation", "tasks", offset] as const,
  task: (taskId: string) => ["conversation", "task", taskId] as const,
  shellOutput: (messageId: string) => ["conversation", "shell-output", messageId] as const,
};

export type ShellOutputState =
  | { kind: "output"; output: ShellOutputResponse }
  | { kind: "removed"; removedAt: string | null; summary: ShellOutputRemoved["summary"] | null };

/** 200 -> the output; 410 tool_payload_removed -> the removal time and retained summary. */
export async function fetchShellOutput(messageId: string, signal?: AbortSignal): Promise<ShellOutputState> {
  try {
    return { kind: "output", output: await fetchJson<ShellOutputResponse>(shellOutputUrl(messageId), { signal }) };
  } catch (error) {
    if (isApiError(error) && error.code === "tool_payload_removed") {
      const body = error.body as Partial<ShellOutputRemoved> | null;
      return { kind: "removed", removedAt: body?.removedAt ?? null, summary: body?.summary ?? null };
    }
    throw error;
  }
}

export function useTaskList(offset: number) {
  return useQuery({
    queryKey: conversationKeys.tasks(offset),
    queryFn: ({ signal }) => fetchJson<TaskListResponse>(`/api/v1/tasks?limit=50&offset=${offset}`, { signal }),
  });
}

export function useTaskConversation(taskId: string) {
  return useQuery({
    queryKey: conversationKeys.task(taskId),
    queryFn: ({ signal }) => fetchJson<TaskConversation>(taskUrl(taskId), { signal }),
  });
}

export function useShellOutput(messageId: string, enabled: boolean) {
  return useQuery({
    queryKey: conversationKeys.shellOutput(messageId),
    queryFn: ({ signal }) => fetchShellOutput(messageId, signal),
    enabled,
    // Output of a finished tool call does not change; only a marker removes it.
    staleTime: Infinity,
  });
}
