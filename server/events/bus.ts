import type { SystemEvent } from "@/lib/events/api";

// In-process fan-out for live progress. Durable state lives in the records
// the events describe; a subscriber that misses an event re-reads status.
export type Listener = (event: SystemEvent) => void;

export type EventBus = {
  publish(event: SystemEvent): void;
  subscribe(listener: Listener): () => void;
  size(): number;
};

export function createEventBus(): EventBus {
  const listeners = new Set<Listener>();
  return {
    publish(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch {
          // One broken subscriber must not stop the others.
          listeners.delete(listener);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    size: () => listeners.size,
  };
}
