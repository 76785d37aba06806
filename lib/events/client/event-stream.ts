// One EventSource on /api/v1/system/events per source factory, shared by every
// subscriber: it opens with the first and closes with the last. Each message
// is checked against the event schema; unreadable ones are dropped.
import { systemEventSchema, SYSTEM_EVENT_TYPES, type SystemEvent } from "@/lib/events/api";

export const SYSTEM_EVENTS_PATH = "/api/v1/system/events";

export type EventSourceLike = {
  addEventListener: (type: string, listener: (event: { data: string }) => void) => void;
  close: () => void;
  onopen?: ((event: Event) => void) | null;
  onerror?: ((event: Event) => void) | null;
};

export type EventSourceFactory = (url: string) => EventSourceLike;

export type SystemEventSubscriber = { onEvent: (event: SystemEvent) => void; onLive?: (live: boolean) => void };

export type SystemEventStream = { subscribe: (subscriber: SystemEventSubscriber) => () => void };

export function parseSystemEvent(data: string): SystemEvent | null {
  let raw: unknown = null;
  try {
    raw = JSON.parse(data);
  } catch {
    // Unreadable text fails the schema check below like any unknown event.
  }
  const parsed = systemEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

export function createSystemEventStream(factory: EventSourceFactory): SystemEventStream {
  const subscribers = new Set<SystemEventSubscriber>();
  let source: EventSourceLike | null = null;
  let live = false;

  const setLive = (next: boolean) => {
    live = next;
    for (const subscriber of subscribers) subscriber.onLive?.(next);
  };

  const open = () => {
    const opened = factory(SYSTEM_EVENTS_PATH);
    for (const type of SYSTEM_EVENT_TYPES) {
      opened.addEventListener(type, (message) => {
        const event = parseSystemEvent(message.data);
        if (!event) return;
        for (const subscriber of subscribers) subscriber.onEvent(event);
      });
    }
    opened.onopen = () => setLive(true);
    opened.onerror = () => setLive(false);
    return opened;
  };

  return {
    subscribe(subscriber) {
      subscribers.add(subscriber);
      if (!source) source = open();
      else subscriber.onLive?.(live);
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size > 0 || !source) return;
        source.close();
        source = null;
        live = false;
      };
    },
  };
}

const browserEventSource: EventSourceFactory = (url) => new EventSource(url, { withCredentials: true }) as unknown as EventSourceLike;

const streams = new WeakMap<EventSourceFactory, SystemEventStream>();

/** The shared stream of a factory (the browser's EventSource unless a test passes its own). */
export function systemEventStream(factory: EventSourceFactory = browserEventSource): SystemEventStream | null {
  if (factory === browserEventSource && typeof EventSource === "undefined") return null;
  let stream = streams.get(factory);
  if (!stream) {
    stream = createSystemEventStream(factory);
    streams.set(factory, stream);
  }
  return stream;
}
