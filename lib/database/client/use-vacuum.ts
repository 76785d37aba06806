"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { postVacuum } from "./fetchers";
import { databaseKeys } from "./keys";

/** VACUUM: the answer (before/after) is the result shown; stats refresh after. */
export function useVacuum() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => postVacuum(),
    onSettled: () => client.invalidateQueries({ queryKey: databaseKeys.stats() }),
  });
}
