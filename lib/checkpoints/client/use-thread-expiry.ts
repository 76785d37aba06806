"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchThreadExpiry } from "./maintenance-fetchers";
import { checkpointKeys } from "./keys";

const ACTIVE_POLL_MS = 1500;
const IDLE_POLL_MS = 60_000;

/** Thread expiry status; polls fast while an analysis, backup or pass is active. */
export function useThreadExpiry() {
  return useQuery({
    queryKey: checkpointKeys.threadExpiry(),
    queryFn: ({ signal }) => fetchThreadExpiry(signal),
    refetchInterval: (query) => (query.state.data?.activeOperation ? ACTIVE_POLL_MS : IDLE_POLL_MS),
  });
}
