"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchCleanupSchedule } from "./maintenance-fetchers";
import { checkpointKeys } from "./keys";

const ACTIVE_POLL_MS = 2000;
const IDLE_POLL_MS = 60_000;

/** Automatic checkpoint cleanup status; polls fast while a run is active, slowly otherwise (the next run may start). */
export function useCleanupSchedule() {
  return useQuery({
    queryKey: checkpointKeys.cleanupSchedule(),
    queryFn: ({ signal }) => fetchCleanupSchedule(signal),
    refetchInterval: (query) => (query.state.data?.activeOperation ? ACTIVE_POLL_MS : IDLE_POLL_MS),
  });
}
