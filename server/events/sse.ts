import type { SystemEvent } from "@/lib/events/api";
import type { EventBus } from "./bus";
import type { Timers } from "@/server/clock";

export const HEARTBEAT_MS = 15_000;

/** Encodes one event in the text/event-stream format. */
export function encodeSse(event: SystemEvent, id: number): string {
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * A text/event-stream body fed by the bus until the client goes away.
 * Heartbeat comments keep proxies from closing an idle stream.
 */
export function sseStream(options: {
  bus: EventBus;
  signal: AbortSignal;
  timers: Timers;
  /** Runs once when the stream ends, however it ends (the client left, the body was cancelled). */
  onClose?: () => void;
}): ReadableStream<Uint8Array> {
  const { bus, signal, timers } = options;
  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | undefined;
  let heartbeat: unknown;
  let closed = false;
  const close = (controller?: ReadableStreamDefaultController<Uint8Array>) => {
    if (closed) return;
    closed = true;
    options.onClose?.();
    unsubscribe?.();
    if (heartbeat !== undefined) timers.clearTimeout(heartbeat);
    try {
      controller?.close();
    } catch {
      // Already closed by the runtime.
    }
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let seq = 0;
      controller.enqueue(encoder.encode(": connected\nretry: 3000\n\n"));
      unsubscribe = bus.subscribe((event) => {
        if (!closed) controller.enqueue(encoder.encode(encodeSse(event, ++seq)));
      });
      const beat = () => {
        if (closed) return;
        controller.enqueue(encoder.encode(": keep-alive\n\n"));
        heartbeat = timers.setTimeout(beat, HEARTBEAT_MS);
      };
      heartbeat = timers.setTimeout(beat, HEARTBEAT_MS);
      if (signal.aborted) close(controller);
      signal.addEventListener("abort", () => close(controller), { once: true });
    },
    cancel() {
      close();
    },
  });
}
