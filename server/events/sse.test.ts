import { describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import { createEventBus } from "./bus";
import { encodeSse, sseStream } from "./sse";
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
});
