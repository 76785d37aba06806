"use client";
// The one subscription to the system event stream. Every consumer (compaction
// progress, conversation markers) calls this hook; they share one EventSource.
// The stream only makes updates faster: consumers that need a state still
// poll or refetch when it is unavailable.
import { useEffect, useRef, useState } from "react";
import type { SystemEvent } from "@/lib/events/api";
import { systemEventStream, type EventSourceFactory } from "./event-stream";

export function useSystemEvents(options: {
  onEvent: (event: SystemEvent) => void;
  enabled?: boolean;
  /** Tests pass a stand-in; the browser's EventSource otherwise. */
  source?: EventSourceFactory;
}): { live: boolean } {
  const { enabled = true, source } = options;
  const onEvent = useRef(options.onEvent);
  const [live, setLive] = useState(false);

  useEffect(() => {
    onEvent.current = options.onEvent;
  });

  useEffect(() => {
    const stream = enabled ? systemEventStream(source) : null;
    if (!stream) return;
    const unsubscribe = stream.subscribe({ onEvent: (event) => onEvent.current(event), onLive: setLive });
    return () => {
      unsubscribe();
      setLive(false);
    };
  }, [enabled, source]);

  return { live };
}
