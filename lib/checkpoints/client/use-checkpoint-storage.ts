"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchCheckpointStorage } from "./fetchers";
import { checkpointKeys } from "./keys";

const ACTIVE_POLL_MS = 1500;

/** Checkpoint storage status; polls while an analysis or cleanup is queued or running. */
export function useCheckpointStorage() {
  return useQuery({
    queryKey: checkpointKeys.storage(),
    queryFn: ({ signal }) => fetchCheckpointStorage(signal),
    refetchInterval: (query) => (query.state.data?.operation ? ACTIVE_POLL_MS : false),
  });
}
