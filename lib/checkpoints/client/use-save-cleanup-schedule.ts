"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { saveCleanupSchedule } from "./maintenance-fetchers";
import { checkpointKeys } from "./keys";

/** Turns the daily cleanup on or off (compare-and-set on the revision read). */
export function useSaveCleanupSchedule() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { enabled: boolean; expectedRevision: number }) => saveCleanupSchedule(body),
    onSuccess: (status) => client.setQueryData(checkpointKeys.cleanupSchedule(), status),
    onSettled: () => client.invalidateQueries({ queryKey: checkpointKeys.all }),
  });
}
