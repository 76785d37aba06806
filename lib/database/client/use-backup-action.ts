"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { databaseKeys } from "./keys";

/** A backup mutation: creating, deleting or restoring changes both the list and the stats. */
export function useBackupAction<TVars, TResult>(action: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: databaseKeys.backups() });
      await client.invalidateQueries({ queryKey: databaseKeys.stats() });
    },
  });
}
