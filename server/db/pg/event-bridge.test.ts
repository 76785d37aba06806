// #26 item 7: NOTIFY payloads are validated before they reach the bus. Any
// session on the database can NOTIFY on the events channel, and an event's
// `type` becomes the SSE `event:` line as it is: a `type` with a newline
// wrote fields of its own into every browser's stream. And the bridge itself:
// LISTEN on a dedicated session with notification events, NOTIFY through the
// pool in order, reconnect and LISTEN again after the session is lost.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import type { Timers } from "@/server/clock";
import { createEventBus, type EventBus } from "@/server/events/bus";
import { encodeSse } from "@/server/events/sse";
import { createLogger } from "@/server/log";
import { bridgeEventBus, EVENTS_CHANNEL, parseEnvelope, RECONNECT_MS, REFUSED_LOG_MS, type EventBridge } from "./event-bridge";
import { createSessionSlot } from "./session-slot";
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
  let bridge: (EventBus & EventBridge) | undefined;
  // Timers fire when the test says so: `fire()` runs every pending one.
  let pending = new Map<number, () => void>();
  let delays: number[] = [];
  let next = 0;
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      pending.set(++next, fn);
      delays.push(ms);
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const fire = () => {
    const due = [...pending.values()];
    pending.clear();
    for (const fn of due) fn();
  };
  const notify = (payload: string) => db.db.query("select pg_notify($1, $2)", [EVENTS_CHANNEL, payload]);

  beforeEach(async () => {
    db = await createPgTestDb();
    pending = new Map();
    delays = [];
  });
  afterEach(async () => {
    await bridge?.stop();
    bridge = undefined;
    await db.close();
  });

  const open = (options: { instanceId?: string; log?: ReturnType<typeof createLogger>; channels?: Record<string, (payload: string) => void> } = {}) => {
    const local = createEventBus();
    const created = bridgeEventBus({
      local,
      db: db.db,
      listen: createSessionSlot(() => db.db.session("listen")),
      instanceId: options.instanceId ?? "a",
      timers,
      log: options.log ?? createLogger({ level: "silent" }),
      channels: options.channels,
    });
    return { local, bridge: created };
  };

  it("[#26-7] a forged notification reaches no stream; the events around it still do; the log counts it without its payload", async () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } });
    const opened = open({ log });
    bridge = opened.bridge;
    await bridge.ready();
    const received: string[] = [];
    opened.local.subscribe((event) => received.push(encodeSse(event, received.length + 1)));

    const forged = JSON.stringify({ from: "b", event: { ...operation("o1"), type: "operation\ndata: {\"forged\":true}\n\nevent: reload" } });
    for (const payload of [JSON.stringify({ from: "b", event: operation("before") }), forged, "not json", JSON.stringify({ from: "b", event: operation("after") })]) {
      await notify(payload);
    }
    // Notifications arrive as events of the listening session: nothing polls.
    await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 10_000, interval: 5 });
    expect(received).toEqual([encodeSse(operation("before"), 1), encodeSse(operation("after"), 2)]);
    for (const frame of received) expect(frame.split("\n").filter((line) => line.startsWith("event:"))).toEqual(["event: operation"]);
    const refusedLines = () => lines.filter((line) => line.includes("event_notification_refused"));
    // The first refusal is told at once, with a count.
    expect(JSON.parse(refusedLines()[0]!)).toMatchObject({ event: "event_notification_refused", refused: 1 });
    expect(lines.join("")).not.toContain("forged");

    // A flood of forged notifications adds no line until REFUSED_LOG_MS has passed, then one with their count.
    for (let i = 0; i < 50; i++) await notify(forged);
    await notify(JSON.stringify({ from: "b", event: operation("last") }));
    await vi.waitFor(() => expect(received).toHaveLength(3), { timeout: 10_000, interval: 5 });
    expect(refusedLines()).toHaveLength(1);
    expect(delays).toContain(REFUSED_LOG_MS);
    fire();
    expect(refusedLines()).toHaveLength(2);
    expect(JSON.parse(refusedLines()[1]!)).toMatchObject({ refused: 51 });
    expect(lines.join("")).not.toContain("forged");
  });

  it("publishes through the pool in order to the other instance, never to itself, and serves the extra channels", async () => {
    const a = open({ instanceId: "a" });
    const commands: string[] = [];
    const b = open({ instanceId: "b", channels: { retention_commands: (payload) => void commands.push(payload) } });
    bridge = a.bridge;
    await Promise.all([a.bridge.ready(), b.bridge.ready()]);
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    a.local.subscribe((event) => void seenByA.push((event as { operationId: string }).operationId));
    b.local.subscribe((event) => void seenByB.push((event as { operationId: string }).operationId));
    for (let i = 0; i < 20; i++) a.bridge.publish(operation(`o${i}`));
    await db.db.query("select pg_notify('retention_commands', 'cmd')");
    await vi.waitFor(() => expect(seenByB).toHaveLength(20), { timeout: 10_000, interval: 5 });
    expect(seenByB).toEqual(Array.from({ length: 20 }, (_, i) => `o${i}`));
    // A's own events reach A's bus once (locally), not again from the database.
    expect(seenByA).toEqual(seenByB);
    await vi.waitFor(() => expect(commands).toEqual(["cmd"]), { timeout: 10_000, interval: 5 });
    await b.bridge.stop();
  });

  it("a killed listening session is opened again and LISTENs again: events sent after the reconnect arrive", async () => {
    const lines: string[] = [];
    const opened = open({ log: createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } }) });
    bridge = opened.bridge;
    await bridge.ready();
    const received: string[] = [];
    opened.local.subscribe((event) => void received.push((event as { operationId: string }).operationId));
    const listenPid = async () =>
      (await db.db.one<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`))?.pid ?? null;
    const first = await listenPid();
    expect(first).not.toBeNull();

    await db.db.query("select pg_terminate_backend($1)", [first]);
    // The loss is noticed and a reconnect is armed (after RECONNECT_MS); until it fires nothing listens.
    await vi.waitFor(() => expect(delays).toContain(RECONNECT_MS), { timeout: 10_000, interval: 5 });
    expect(lines.some((line) => line.includes("listening session lost"))).toBe(true);
    fire();
    await vi.waitFor(async () => expect(await listenPid()).not.toBeNull(), { timeout: 10_000, interval: 5 });
    expect(await listenPid()).not.toBe(first);
    await notify(JSON.stringify({ from: "b", event: operation("after-reconnect") }));
    await vi.waitFor(() => expect(received).toEqual(["after-reconnect"]), { timeout: 10_000, interval: 5 });
  });

  it("a reconnect that fails is tried again with a growing delay", async () => {
    let failures = 2;
    const local = createEventBus();
    const slot = createSessionSlot(async () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error("refused");
      }
      return db.db.session("listen");
    });
    bridge = bridgeEventBus({ local, db: db.db, listen: slot, instanceId: "a", timers, log: createLogger({ level: "silent" }) });
    await bridge.ready();
    expect(delays).toEqual([RECONNECT_MS]);
    fire();
    await vi.waitFor(() => expect(delays).toEqual([RECONNECT_MS, RECONNECT_MS * 2]), { timeout: 10_000, interval: 5 });
    fire();
    const received: string[] = [];
    local.subscribe((event) => void received.push((event as { operationId: string }).operationId));
    await vi.waitFor(async () => {
      await notify(JSON.stringify({ from: "b", event: operation("late") }));
      expect(received.length).toBeGreaterThan(0);
    }, { timeout: 10_000, interval: 20 });
    expect(received[0]).toBe("late");
  });
});
