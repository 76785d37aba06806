"use client";
// Live progress of compaction operations over Server-Sent Events. When the
// stream is unavailable the card keeps polling (the status hook polls faster
// while an operation is active), so this only makes progress smoother.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { OperationEvent } from "@/lib/events/types";
import { retentionKeys } from "./keys";

export const EVENTS_PATH = "/api/v1/system/events";
const RETENTION_KINDS = new Set(["analysis", "preparation", "cleanup"]);
const TERMINAL = new Set(["succeeded", "partial", "failed", "cancelled"]);

export function parseOperationEvent(data: string): OperationEvent | null {
  try {
    const event = JSON.parse(data) as Partial<OperationEvent>;
    if (event.type !== "operation" || typeof event.operationId !== "string" || !RETENTION_KINDS.has(String(event.kind))) return null;
    if (!event.progress || typeof event.progress.scannedRows !== "number") return null;
    return event as OperationEvent;
  } catch {
    return null;
  }
}

export function useOperationEvents(options: { enabled: boolean }): { latest: OperationEvent | null; live: boolean } {
  const queryClient = useQueryClient();
  const [latest, setLatest] = useState<OperationEvent | null>(null);
  const [live, setLive] = useState(false);

  useEffect(() => {
    if (!options.enabled || typeof EventSource === "undefined") return;
    const source = new EventSource(EVENTS_PATH);
    const onOperation = (message: MessageEvent<string>) => {
      const event = parseOperationEvent(message.data);
      if (!event) return;
      setLatest(event);
      // A start or an end changes the status record: read it now instead of at the next poll.
      if (event.state === "queued" || TERMINAL.has(event.state)) void queryClient.invalidateQueries({ queryKey: retentionKeys.status() });
    };
    source.addEventListener("operation", onOperation as EventListener);
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    return () => {
      source.removeEventListener("operation", onOperation as EventListener);
      source.close();
    };
  }, [options.enabled, queryClient]);

  return { latest, live };
}
