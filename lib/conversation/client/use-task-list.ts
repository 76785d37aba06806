"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchTaskList } from "./fetchers";
import { conversationKeys } from "./keys";

/** One page of tasks (50 per page). */
export function useTaskList(offset: number) {
  return useQuery({ queryKey: conversationKeys.tasks(offset), queryFn: ({ signal }) => fetchTaskList(offset, signal) });
}
