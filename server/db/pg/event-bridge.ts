// Live events to every instance's browsers: each instance publishes its bus
// events with NOTIFY on one channel and re-publishes the other instances'
// events it receives on a LISTEN session into its own bus. Events carry ids
// and counts only (never payload text), as on one instance. NOTIFY payloads
// are capped at 8000 bytes: a batch's list of changed message ids is split
// across several notifications when it would not fit.
import { z } from "zod";
import { systemEventSchema, type SystemEvent } from "@/lib/events/api";
import type { Timers } from "@/server/clock";
import type { EventBus } from "@/server/events/bus";
import type { Logger } from "@/server/log";
import type { SqlClient } from "./client";

export const EVENTS_CHANNEL = "retention_events";
const MAX_PAYLOAD_BYTES = 7_900;
export const EVENTS_POLL_MS = 250;
/** Polls between two lines about dropped notifications (a minute at EVENTS_POLL_MS). */
export const REFUSED_LOG_POLLS = 240;

type Envelope = { from: string; event: SystemEvent };

/**
 * What a notification must be before its event reaches the bus. Anyone with
 * a connection to the database can NOTIFY on the channel, and the event's
 * `type` becomes the SSE `event:` line as it is: a `type` with a newline
 * would write fields of its own into every browser's stream. Only the known
 * event shapes pass (the type is one of SYSTEM_EVENT_TYPES).
 */
const envelopeSchema = z.strictObject({ from: z.string().max(100), event: systemEventSchema });

/** The envelope in a notification's payload, or null when it is not one of ours. */
export function parseEnvelope(payload: string): Envelope | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  const parsed = envelopeSchema.safeParse(value);
  return parsed.success ? (parsed.data as Envelope) : null;
}

/** The notifications one event becomes (a long messages_changed list is split). */
export function envelopesOf(from: string, event: SystemEvent): string[] {
  const text = JSON.stringify({ from, event } satisfies Envelope);
  if (Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return [text];
  if (event.type !== "messages_changed" || event.messageIds.length < 2) return [];
  const half = Math.ceil(event.messageIds.length / 2);
  return [
    ...envelopesOf(from, { ...event, messageIds: event.messageIds.slice(0, half) }),
    ...envelopesOf(from, { ...event, messageIds: event.messageIds.slice(half) }),
  ];
}

export type EventBridge = { stop(): void };

/**
 * Wraps `local` so its events also reach the other instances, and feeds
 * theirs into it. `sender` sends NOTIFYs (any connection of this instance);
 * `listener` is a dedicated session that only LISTENs.
 */
export function bridgeEventBus(options: {
  local: EventBus;
  sender: SqlClient;
  listener: SqlClient;
  instanceId: string;
  timers: Timers;
  log: Logger;
  pollMs?: number;
  /** Other channels the same listening session serves (the worker's command relay). */
  channels?: Record<string, (payload: string) => void>;
}): EventBus & EventBridge {
  const { local, sender, listener, instanceId, timers, log } = options;
  const channels = options.channels ?? {};
  listener.exec(`listen ${EVENTS_CHANNEL}`);
  for (const channel of Object.keys(channels)) listener.exec(`listen ${channel}`);
  let stopped = false;
  let timer: unknown = null;
  let unlogged = 0;
  let pollsSinceLine = REFUSED_LOG_POLLS;

  const poll = () => {
    timer = null;
    if (stopped) return;
    let refused = 0;
    try {
      for (const note of listener.drainNotifications()) {
        if (note.channel !== EVENTS_CHANNEL) {
          channels[note.channel]?.(note.payload);
          continue;
        }
        // One bad notification is dropped on its own: the ones after it still arrive.
        const envelope = parseEnvelope(note.payload);
        if (!envelope) refused += 1;
        else if (envelope.from !== instanceId) local.publish(envelope.event);
      }
    } catch (error) {
      log.warn({ err: { name: (error as Error).name } }, "event bridge poll failed");
    }
    // A count only, never the payload; at most one line per REFUSED_LOG_POLLS
    // polls (about a minute), so a flood cannot push the log ring out.
    unlogged += refused;
    pollsSinceLine += 1;
    if (unlogged > 0 && pollsSinceLine >= REFUSED_LOG_POLLS) {
      log.warn({ event: "event_notification_refused", refused: unlogged }, "event notifications that are not events were dropped");
      unlogged = 0;
      pollsSinceLine = 0;
    }
    timer = timers.setTimeout(poll, options.pollMs ?? EVENTS_POLL_MS);
  };
  poll();

  return {
    publish(event) {
      local.publish(event);
      if (stopped) return;
      try {
        for (const payload of envelopesOf(instanceId, event)) sender.one(`select pg_notify($1, $2)`, [EVENTS_CHANNEL, payload]);
      } catch (error) {
        // Live progress is best effort: status re-reads the durable record.
        log.warn({ err: { name: (error as Error).name } }, "event notify failed");
      }
    },
    subscribe: (fn) => local.subscribe(fn),
    size: () => local.size(),
    stop() {
      stopped = true;
      if (timer) timers.clearTimeout(timer);
      timer = null;
    },
  };
}
