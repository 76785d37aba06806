"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { postClearMaintenanceLock } from "./fetchers";
import { databaseKeys } from "./keys";

/** Clears a maintenance lock of another host; the stats (which report it) refresh after, cleared or not. */
export function useClearMaintenanceLock() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (vars: { id: string; confirm: string }) => postClearMaintenanceLock(vars),
    onSettled: () => client.invalidateQueries({ queryKey: databaseKeys.stats() }),
  });
}
