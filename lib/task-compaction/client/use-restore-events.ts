"use client";
// Live updates for the task's compaction panel: a per-task restore's progress
// and end, and compaction changing messages, re-read the summary and the
// hold (the conversation's own hook handles the messages themselves).
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { SystemEvent } from "@/lib/events/api";
import type { EventSourceFactory } from "@/lib/events/client/event-stream";
import { useSystemEvents } from "@/lib/events/client/use-system-events";
import { taskCompactionKeys } from "./keys";

export function useRestoreEvents(taskId: string, source?: EventSourceFactory): void {
  const client = useQueryClient();
  const onEvent = useCallback(
    (event: SystemEvent) => {
      const restore = event.type === "operation" && event.kind === "payload_restore";
      if (!restore && event.type !== "messages_changed") return;
      void client.invalidateQueries({ queryKey: taskCompactionKeys.summary(taskId) });
      if (restore && event.state !== "running") void client.invalidateQueries({ queryKey: taskCompactionKeys.hold(taskId) });
    },
    [client, taskId],
  );
  useSystemEvents({ onEvent, source });
}
