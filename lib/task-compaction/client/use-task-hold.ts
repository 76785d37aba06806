"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchTaskHold } from "./fetchers";
import { taskCompactionKeys } from "./keys";

/** Whether the task is held out of compaction, by whom and since when (every signed-in user). */
export function useTaskHold(taskId: string) {
  return useQuery({ queryKey: taskCompactionKeys.hold(taskId), queryFn: ({ signal }) => fetchTaskHold(taskId, signal) });
}
