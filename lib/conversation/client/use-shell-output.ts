"use client";
// Shell output is loaded lazily per message and cached under its own key, so
// a compaction marker can drop exactly that entry (TPR-TX-07, see
// use-messages-changed-events.ts).
import { useQuery } from "@tanstack/react-query";
import { fetchShellOutput } from "./fetchers";
import { conversationKeys } from "./keys";

export function useShellOutput(messageId: string, enabled: boolean) {
  return useQuery({
    queryKey: conversationKeys.shellOutput(messageId),
    queryFn: ({ signal }) => fetchShellOutput(messageId, signal),
    enabled,
    // Output of a finished tool call does not change; only a marker removes it.
    staleTime: Infinity,
  });
}
