"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchThreadCheckpoints } from "./fetchers";
import { checkpointKeys } from "./keys";

/** One thread's checkpoints by turn with their retention verdicts. */
export function useThreadCheckpoints(threadId: string) {
  return useQuery({
    queryKey: checkpointKeys.thread(threadId),
    queryFn: ({ signal }) => fetchThreadCheckpoints(threadId, signal),
  });
}
