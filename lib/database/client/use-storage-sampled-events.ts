"use client";
// A new storage-history sample (after a compaction pass, a cleanup, a
// VACUUM, a restore, or the daily one) refreshes the chart and the stats.
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { SystemEvent } from "@/lib/events/api";
import type { EventSourceFactory } from "@/lib/events/client/event-stream";
import { useSystemEvents } from "@/lib/events/client/use-system-events";
import { databaseKeys } from "./keys";

export function useStorageSampledEvents(options: { source?: EventSourceFactory } = {}): void {
  const client = useQueryClient();
  const onEvent = useCallback(
    (event: SystemEvent) => {
      if (event.type !== "storage_sampled") return;
      void client.invalidateQueries({ queryKey: databaseKeys.historyAll() });
      void client.invalidateQueries({ queryKey: databaseKeys.stats() });
    },
    [client],
  );
  useSystemEvents({ onEvent, source: options.source });
}
