import { describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import { createEventBus } from "./bus";
import { SSE_QUEUE_LIMIT_BYTES, encodeSse, sseStream } from "./sse";
import type { Timers } from "@/server/clock";

function fakeTimers() {
  const pending: Array<() => void> = [];
  const timers: Timers = {
    setTimeout: (fn) => {
      pending.push(fn);
      return pending.length;
    },
    clearTimeout: () => {},
  };
  return { timers, fire: () => pending.shift()?.() };
}

const event: SystemEvent = {
  type: "operation",
  operationId: "op-1",
  kind: "cleanup",
  state: "running",
  progress: { scannedRows: 10, eligibleMessages: 4, changedMessages: 3, payloadBytes: 1200, fraction: 0.5 },
};

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return new TextDecoder().decode(value);
}

describe("sse", () => {
  it("[TPR-API-07] streams operation id, state and progress counts", async () => {
    const bus = createEventBus();
    const abort = new AbortController();
    const { timers, fire } = fakeTimers();
    const reader = sseStream({ bus, signal: abort.signal, timers }).getReader();
    expect(await readChunk(reader)).toContain(": connected");
    bus.publish(event);
    const chunk = await readChunk(reader);
    expect(chunk).toBe(encodeSse(event, 1));
    expect(JSON.parse(chunk.split("data: ")[1]!)).toEqual(event);
    fire();
    expect(await readChunk(reader)).toBe(": keep-alive\n\n");
    abort.abort();
    expect(bus.size()).toBe(0);
    expect((await reader.read()).done).toBe(true);
  });

  it("drops a throwing subscriber without affecting others", () => {
    const bus = createEventBus();
    const seen: SystemEvent[] = [];
    bus.subscribe(() => {
      throw new Error("broken");
    });
    bus.subscribe((e) => seen.push(e));
    bus.publish(event);
    bus.publish(event);
    expect(seen).toHaveLength(2);
    expect(bus.size()).toBe(1);
  });

  it("[#26 item 7] a client that stops reading has its stream ended: the server never queues past the limit", async () => {
    const bus = createEventBus();
    const slow: number[] = [];
    let closed = 0;
    const body = sseStream({ bus, signal: new AbortController().signal, timers: fakeTimers().timers, onSlowClient: (queued) => slow.push(queued), onClose: () => closed++ });
    const big: SystemEvent = { type: "messages_changed", operationId: "op-1", messageIds: Array.from({ length: 20 }, (_, i) => `message-${i}`) };
    // About 4 MiB of events for a client that reads nothing.
    for (let i = 0; i < 10_000; i++) bus.publish(big);
    expect(slow).toHaveLength(1);
    expect(slow[0]).toBeLessThanOrEqual(SSE_QUEUE_LIMIT_BYTES);
    expect(closed).toBe(1);
    expect(bus.size()).toBe(0);
    // What is left to read is what was queued before the limit, then the end.
    const reader = body.getReader();
    let bytes = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength;
    expect(bytes).toBeLessThanOrEqual(SSE_QUEUE_LIMIT_BYTES);
  });

  it("a client that keeps reading is never cut off, however many events pass", async () => {
    const bus = createEventBus();
    const slow: number[] = [];
    const reader = sseStream({ bus, signal: new AbortController().signal, timers: fakeTimers().timers, onSlowClient: (q) => slow.push(q) }).getReader();
    await reader.read();
    let bytes = 0;
    for (let i = 0; i < 5_000; i++) {
      bus.publish(event);
      bytes += (await reader.read()).value?.byteLength ?? 0;
    }
    expect(slow).toEqual([]);
    expect(bytes).toBeGreaterThan(4 * SSE_QUEUE_LIMIT_BYTES);
    expect(bus.size()).toBe(1);
  });
});
