import type { SystemEvent } from "@/lib/events/api";
import type { EventBus } from "./bus";
import type { Timers } from "@/server/clock";

export const HEARTBEAT_MS = 15_000;
/**
 * Most bytes a stream holds for a client that does not read. Events are
 * hints (a client that misses one re-reads status), so a client this far
 * behind is better served by a fresh connection than by a growing queue:
 * the stream ends and its EventSource reconnects.
 */
export const SSE_QUEUE_LIMIT_BYTES = 64 * 1024;

/** Encodes one event in the text/event-stream format. */
export function encodeSse(event: SystemEvent, id: number): string {
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * A text/event-stream body fed by the bus until the client goes away or
 * `ended` fires (the session ended: stream-registry.ts). Heartbeat comments
 * keep proxies from closing an idle stream. Nothing is queued past
 * `queueLimitBytes`: the body's queue counts bytes the client has not read
 * yet, and a client that far behind has its stream ended (`onSlowClient`).
 */
export function sseStream(options: {
  bus: EventBus;
  signal: AbortSignal;
  timers: Timers;
  /** Ends the stream from the server's side. */
  ended?: AbortSignal;
  queueLimitBytes?: number;
  /** Runs once when the stream ends, however it ends (the client left, the body was cancelled, `ended`, a slow client). */
  onClose?: () => void;
  onSlowClient?: (queuedBytes: number) => void;
}): ReadableStream<Uint8Array> {
  const { bus, signal, timers } = options;
  const limit = options.queueLimitBytes ?? SSE_QUEUE_LIMIT_BYTES;
  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | undefined;
  let heartbeat: unknown;
  let closed = false;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    options.onClose?.();
    unsubscribe?.();
    if (heartbeat !== undefined) timers.clearTimeout(heartbeat);
    try {
      controllerRef?.close();
    } catch {
      // Already closed or cancelled by the runtime.
    }
  };
  const send = (text: string) => {
    const controller = controllerRef;
    if (closed || !controller) return;
    const bytes = encoder.encode(text);
    // desiredSize = limit - bytes queued and unread.
    const room = controller.desiredSize ?? limit;
    if (room < bytes.byteLength) {
      options.onSlowClient?.(limit - room);
      close();
      return;
    }
    controller.enqueue(bytes);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        let seq = 0;
        send(": connected\nretry: 3000\n\n");
        unsubscribe = bus.subscribe((event) => send(encodeSse(event, ++seq)));
        const beat = () => {
          if (closed) return;
          send(": keep-alive\n\n");
          if (!closed) heartbeat = timers.setTimeout(beat, HEARTBEAT_MS);
        };
        heartbeat = timers.setTimeout(beat, HEARTBEAT_MS);
        for (const source of [signal, options.ended]) {
          if (!source) continue;
          if (source.aborted) close();
          else source.addEventListener("abort", close, { once: true });
        }
      },
      cancel() {
        close();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: limit }),
  );
}
