"use client";
import { useQuery } from "@tanstack/react-query";
import { THREAD_TITLES_MAX } from "@/lib/checkpoints/api";
import { fetchThreadTitles } from "./fetchers";
import { checkpointKeys } from "./keys";

/**
 * Titles of the given threads (their `title` channel), as a map by id. A
 * list shows its ids at once and each title when it arrives; a failed read
 * leaves the ids alone (the list stays usable).
 */
export function useThreadTitles(threadIds: readonly string[], options: { enabled?: boolean } = {}) {
  const ids = threadIds.slice(0, THREAD_TITLES_MAX);
  const query = useQuery({
    queryKey: checkpointKeys.titles(ids),
    queryFn: ({ signal }) => fetchThreadTitles(ids, signal),
    enabled: (options.enabled ?? true) && ids.length > 0,
    staleTime: 60_000,
  });
  const titles = new Map<string, string | null>();
  for (const entry of query.data?.threads ?? []) titles.set(entry.threadId, entry.title);
  return { titles, isPending: query.isPending && ids.length > 0, isError: query.isError };
}
