"use client";
// Live progress of compaction operations from the shared system event stream.
// When the stream is unavailable the card keeps polling (the status hook
// polls faster while an operation is active), so this only makes progress
// smoother.
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import type { OperationEvent, SystemEvent } from "@/lib/events/api";
import { useSystemEvents } from "@/lib/events/client/use-system-events";
import { compactionKeys } from "./keys";

const COMPACTION_KINDS = new Set<OperationEvent["kind"]>(["analysis", "preparation", "cleanup"]);
const TERMINAL = new Set<OperationEvent["state"]>(["succeeded", "partial", "failed", "cancelled"]);

/** The event when it reports a compaction operation (not a checkpoint one, not a marker). */
export function compactionOperationOf(event: SystemEvent): OperationEvent | null {
  return event.type === "operation" && COMPACTION_KINDS.has(event.kind) ? event : null;
}

export function useOperationEvents(options: { enabled: boolean }): { latest: OperationEvent | null; live: boolean } {
  const queryClient = useQueryClient();
  const [latest, setLatest] = useState<OperationEvent | null>(null);
  const onEvent = useCallback(
    (event: SystemEvent) => {
      const operation = compactionOperationOf(event);
      if (!operation) return;
      setLatest(operation);
      // A start or an end changes the status record: read it now instead of at the next poll.
      if (operation.state === "queued" || TERMINAL.has(operation.state)) void queryClient.invalidateQueries({ queryKey: compactionKeys.status() });
    },
    [queryClient],
  );
  const { live } = useSystemEvents({ onEvent, enabled: options.enabled });
  return { latest, live };
}
