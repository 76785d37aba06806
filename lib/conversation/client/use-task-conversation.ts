"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchTaskConversation } from "./fetchers";
import { conversationKeys } from "./keys";

/** A task and its messages; tool output is not included (see use-shell-output). */
export function useTaskConversation(taskId: string) {
  return useQuery({ queryKey: conversationKeys.task(taskId), queryFn: ({ signal }) => fetchTaskConversation(taskId, signal) });
}
