// Live events to every instance's browsers: each instance publishes its bus
// events with NOTIFY on one channel and re-publishes the other instances'
// events it receives on a LISTEN session into its own bus. Events carry ids
// and counts only (never payload text), as on one instance. NOTIFY payloads
// are capped at 8000 bytes: a batch's list of changed message ids is split
// across several notifications when it would not fit.
// The LISTEN session is a dedicated connection whose `notification` events
// arrive as the server sends them (no polling); NOTIFYs go through the pool,
// one at a time so another instance receives them in publish order. A lost
// LISTEN session is opened again (growing delays, injected timers) and
// LISTENs again; what was sent meanwhile is missed, as any live event of a
// disconnected browser: status re-reads the durable record.
import { z } from "zod";
import { systemEventSchema, type SystemEvent } from "@/lib/events/api";
import type { Timers } from "@/server/clock";
import type { EventBus } from "@/server/events/bus";
import type { Logger } from "@/server/log";
import type { PgDb, PgSession } from "./pg-db";
import type { SessionSlot } from "./session-slot";

export const EVENTS_CHANNEL = "retention_events";
const MAX_PAYLOAD_BYTES = 7_900;
/** Most one line about dropped notifications per this many ms. */
export const REFUSED_LOG_MS = 60_000;
/** First delay before opening a lost LISTEN session again; it doubles up to RECONNECT_MAX_MS. */
export const RECONNECT_MS = 500;
export const RECONNECT_MAX_MS = 30_000;

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

export type EventBridge = {
  /** Settles once the first LISTEN is in place (or failed: reconnecting then goes on in the background). */
  ready(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Wraps `local` so its events also reach the other instances, and feeds
 * theirs into it. NOTIFYs go through `db`'s pool; `listen` is the slot of
 * the dedicated session that only LISTENs.
 */
export function bridgeEventBus(options: {
  local: EventBus;
  db: PgDb;
  listen: SessionSlot;
  instanceId: string;
  timers: Timers;
  log: Logger;
  /** Other channels the same listening session serves (the worker's command relay). */
  channels?: Record<string, (payload: string) => void>;
}): EventBus & EventBridge {
  const { local, db, listen, instanceId, timers, log } = options;
  const channels = options.channels ?? {};
  let stopped = false;
  let reconnectTimer: unknown = null;
  let delayMs = RECONNECT_MS;
  let unlogged = 0;
  let refusedTimer: unknown = null;
  let sending: Promise<void> = Promise.resolve();

  // A count only, never the payload; the first refusal is told at once, then at most one line per REFUSED_LOG_MS,
  // so a flood cannot push the log ring out.
  const tellRefused = () => {
    refusedTimer = null;
    if (unlogged === 0) return;
    log.warn({ event: "event_notification_refused", refused: unlogged }, "event notifications that are not events were dropped");
    unlogged = 0;
    refusedTimer = timers.setTimeout(tellRefused, REFUSED_LOG_MS);
  };

  const onNotification = (note: { channel: string; payload?: string }) => {
    if (stopped) return;
    const payload = note.payload ?? "";
    if (note.channel !== EVENTS_CHANNEL) {
      channels[note.channel]?.(payload);
      return;
    }
    // One bad notification is dropped on its own: the ones after it still arrive.
    const envelope = parseEnvelope(payload);
    if (envelope) {
      if (envelope.from !== instanceId) local.publish(envelope.event);
      return;
    }
    unlogged += 1;
    if (!refusedTimer) tellRefused();
  };

  const listenOn = async (session: PgSession) => {
    session.client.on("notification", onNotification);
    await session.exec([EVENTS_CHANNEL, ...Object.keys(channels)].map((channel) => `listen ${channel}`).join("; "));
  };

  const scheduleReconnect = () => {
    if (stopped || reconnectTimer) return;
    reconnectTimer = timers.setTimeout(() => {
      reconnectTimer = null;
      void connect();
    }, delayMs);
    delayMs = Math.min(delayMs * 2, RECONNECT_MAX_MS);
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    try {
      const session = await listen.get();
      await listenOn(session);
      if (!session.alive) throw new Error("the listening session was lost while it subscribed");
      delayMs = RECONNECT_MS;
    } catch (error) {
      log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "event bridge listen failed; retrying");
      scheduleReconnect();
    }
  };

  listen.onLost((_lost, error) => {
    if (stopped) return;
    log.warn({ err: { name: error.name, code: (error as { code?: unknown }).code } }, "event bridge listening session lost; reconnecting");
    scheduleReconnect();
  });
  const first = connect();

  const notify = (payload: string) => async () => {
    try {
      // On the pool itself, never inside a caller's open transaction (a rollback would drop the event).
      await db.pool.query({ text: "select pg_notify($1, $2)", values: [EVENTS_CHANNEL, payload] });
    } catch (error) {
      // Live progress is best effort: status re-reads the durable record.
      log.warn({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "event notify failed");
    }
  };

  return {
    publish(event) {
      local.publish(event);
      if (stopped) return;
      for (const payload of envelopesOf(instanceId, event)) sending = sending.then(notify(payload));
    },
    subscribe: (fn) => local.subscribe(fn),
    size: () => local.size(),
    ready: () => first,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (reconnectTimer) timers.clearTimeout(reconnectTimer);
      if (refusedTimer) timers.clearTimeout(refusedTimer);
      reconnectTimer = null;
      refusedTimer = null;
      await first;
      await sending;
      await listen.close();
    },
  };
}
