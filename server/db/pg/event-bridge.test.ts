// #26 item 7: NOTIFY payloads are validated before they reach the bus. Any
// session on the database can NOTIFY on the events channel, and an event's
// `type` becomes the SSE `event:` line as it is: a `type` with a newline
// wrote fields of its own into every browser's stream.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import type { Timers } from "@/server/clock";
import { createEventBus } from "@/server/events/bus";
import { encodeSse } from "@/server/events/sse";
import { createLogger } from "@/server/log";
import { connectPg, type SqlClient } from "./client";
import { bridgeEventBus, EVENTS_CHANNEL, parseEnvelope, REFUSED_LOG_POLLS, type EventBridge } from "./event-bridge";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./test-db";

const operation = (operationId: string): SystemEvent => ({
  type: "operation",
  operationId,
  kind: "cleanup",
  state: "running",
  progress: { scannedRows: 1, eligibleMessages: 1, changedMessages: 0, payloadBytes: 0, fraction: null },
});

describe("parseEnvelope", () => {
  it.each([
    ["not JSON", "{"],
    ["a type with a newline", JSON.stringify({ from: "b", event: { ...operation("o1"), type: "operation\ndata: forged" } })],
    ["an unknown type", JSON.stringify({ from: "b", event: { type: "reload", operationId: "o1" } })],
    ["a wrong-typed field", JSON.stringify({ from: "b", event: { ...operation("o1"), progress: "all" } })],
    ["extra envelope members", JSON.stringify({ from: "b", event: operation("o1"), html: "<b>" })],
    ["no sender", JSON.stringify({ event: operation("o1") })],
    ["null", "null"],
  ])("[#26-7] refuses %s", (_name, payload) => {
    expect(parseEnvelope(payload)).toBeNull();
  });

  it("accepts the envelopes this server sends", () => {
    expect(parseEnvelope(JSON.stringify({ from: "b", event: operation("o1") }))).toEqual({ from: "b", event: operation("o1") });
    const changed: SystemEvent = { type: "messages_changed", operationId: "o1", messageIds: ["m1", "m2"] };
    expect(parseEnvelope(JSON.stringify({ from: "b", event: changed }))?.event).toEqual(changed);
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("the event bridge on PostgreSQL", () => {
  let db: PgTestDb;
  let listener: SqlClient;
  let bridge: EventBridge | undefined;
  // The bridge polls when the test says so.
  let pending: (() => void) | null = null;
  const timers: Timers = { setTimeout: (fn) => ((pending = fn), 1), clearTimeout: () => (pending = null) };
  const pollNow = () => {
    const fn = pending;
    pending = null;
    fn?.();
  };

  beforeEach(() => {
    db = createPgTestDb();
    listener = connectPg({ url: db.url });
  });
  afterEach(async () => {
    bridge?.stop();
    listener.close();
    await db.close();
  });

  it("[#26-7] a forged notification reaches no stream; the events around it still do; the log counts it without its payload", async () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } });
    const local = createEventBus();
    const received: string[] = [];
    local.subscribe((event) => received.push(encodeSse(event, received.length + 1)));
    bridge = bridgeEventBus({ local, sender: db.client, listener, instanceId: "a", timers, log, pollMs: 1 });

    const forged = JSON.stringify({ from: "b", event: { ...operation("o1"), type: "operation\ndata: {\"forged\":true}\n\nevent: reload" } });
    for (const payload of [JSON.stringify({ from: "b", event: operation("before") }), forged, "not json", JSON.stringify({ from: "b", event: operation("after") })]) {
      db.client.one("select pg_notify($1, $2)", [EVENTS_CHANNEL, payload]);
    }
    // Notifications arrive on the listener's session asynchronously: poll until both good ones are in.
    for (let i = 0; i < 2000 && received.length < 2; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      pollNow();
    }
    expect(received).toEqual([encodeSse(operation("before"), 1), encodeSse(operation("after"), 2)]);
    for (const frame of received) expect(frame.split("\n").filter((line) => line.startsWith("event:"))).toEqual(["event: operation"]);
    const refusedLines = () => lines.filter((line) => line.includes("event_notification_refused"));
    // The first refusal is told at once, with a count.
    expect(JSON.parse(refusedLines()[0]!)).toMatchObject({ event: "event_notification_refused", refused: expect.any(Number) });
    expect(lines.join("")).not.toContain("forged");

    // A flood of forged notifications, one per poll, adds at most one line per REFUSED_LOG_POLLS polls.
    const before = refusedLines().length;
    for (let i = 0; i < REFUSED_LOG_POLLS - 1; i++) {
      db.client.one("select pg_notify($1, $2)", [EVENTS_CHANNEL, forged]);
      await new Promise((resolve) => setImmediate(resolve));
      pollNow();
    }
    expect(refusedLines().length - before).toBeLessThanOrEqual(1);
    expect(lines.join("")).not.toContain("forged");
    expect(received).toHaveLength(2);
  });
});
