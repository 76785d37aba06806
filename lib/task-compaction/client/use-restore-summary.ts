"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchRestoreSummary } from "./fetchers";
import { taskCompactionKeys } from "./keys";

/** Polled while a restore of the task runs; the event stream refreshes it sooner. */
const RUNNING_POLL_MS = 2000;

/** What compaction removed from the task, the backups that can bring it back, and the latest restore. */
export function useRestoreSummary(taskId: string) {
  return useQuery({
    queryKey: taskCompactionKeys.summary(taskId),
    queryFn: ({ signal }) => fetchRestoreSummary(taskId, signal),
    refetchInterval: (query) => (query.state.data?.latest?.state === "running" ? RUNNING_POLL_MS : false),
  });
}
