"use client";
// Live marker delivery for the conversation view (TPR-TX-07): when the
// server reports that compaction changed some messages, any shell output
// cached for them is dropped at once (an open panel refetches and gets the
// 410 notice) and the conversation is re-read for the new summaries.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { SystemEvent } from "@/lib/events/api";
import type { EventSourceFactory } from "@/lib/events/client/event-stream";
import { useSystemEvents } from "@/lib/events/client/use-system-events";
import { conversationKeys } from "./keys";

export function applySystemEvent(client: QueryClient, event: SystemEvent): void {
  if (event.type !== "messages_changed" || event.messageIds.length === 0) return;
  for (const messageId of event.messageIds) {
    // reset, not invalidate: the stale body must not stay on screen while a refetch runs.
    void client.resetQueries({ queryKey: conversationKeys.shellOutput(messageId), exact: true });
  }
  void client.invalidateQueries({ queryKey: conversationKeys.tasksAll() });
}

/** Applies markers from the shared system event stream while mounted. */
export function useMessagesChangedEvents(source?: EventSourceFactory): void {
  const client = useQueryClient();
  const onEvent = useCallback((event: SystemEvent) => applySystemEvent(client, event), [client]);
  useSystemEvents({ onEvent, source });
}
