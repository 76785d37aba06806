"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { accountKeys } from "./keys";

/**
 * A change to accounts; the list and every session list are read again after
 * it, whatever the outcome. The action gets the variables only: react-query
 * passes its own context object as a second argument, which a fetcher would
 * take for its abort signal (fetch then throws and the change never leaves).
 */
export function useAccountAction<V, R>(action: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => action(vars),
    onSettled: () => client.invalidateQueries({ queryKey: accountKeys.all }),
  });
}
