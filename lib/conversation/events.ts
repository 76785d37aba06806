"use client";
// Live marker delivery for the conversation view (TPR-TX-07): when the
// server reports that compaction changed some messages, any shell output
// cached for them is dropped at once (an open panel refetches and gets the
// 410 notice) and the conversation is re-read for the new summaries.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { SystemEvent } from "@/lib/events/types";
import { conversationKeys } from "./queries";

export const SYSTEM_EVENTS_URL = "/api/v1/system/events";

export function applySystemEvent(client: QueryClient, event: SystemEvent): void {
  if (event.type !== "messages_changed" || event.messageIds.length === 0) return;
  for (const messageId of event.messageIds) {
    // reset, not invalidate: the stale body must not stay on screen while a refetch runs.
    void client.resetQueries({ queryKey: conversationKeys.shellOutput(messageId), exact: true });
  }
  void client.invalidateQueries({ queryKey: ["conversation", "task"] });
}

export type EventSourceLike = {
  addEventListener: (type: string, listener: (event: { data: string }) => void) => void;
  close: () => void;
};

export type EventSourceFactory = (url: string) => EventSourceLike;

const browserEventSource: EventSourceFactory = (url) => new EventSource(url, { withCredentials: true }) as unknown as EventSourceLike;

/** Subscribes to the system event stream while mounted. */
export function useMessagesChangedEvents(createSource: EventSourceFactory = browserEventSource): void {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof window === "undefined" || (createSource === browserEventSource && typeof EventSource === "undefined")) return;
    const source = createSource(SYSTEM_EVENTS_URL);
    source.addEventListener("messages_changed", (message) => {
      let event: SystemEvent;
      try {
        event = JSON.parse(message.data) as SystemEvent;
      } catch {
        return;
      }
      applySystemEvent(client, event);
    });
    return () => source.close();
  }, [client, createSource]);
}
