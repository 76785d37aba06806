import { describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import { createSystemEventStream, type EventSourceLike } from "./event-stream";

function fakeSources() {
  const opened: { url: string; listeners: Map<string, (event: { data: string }) => void>; closed: boolean; source: EventSourceLike }[] = [];
  const factory = (url: string) => {
    const listeners = new Map<string, (event: { data: string }) => void>();
    const entry = { url, listeners, closed: false, source: null as unknown as EventSourceLike };
    entry.source = { addEventListener: (type, listener) => listeners.set(type, listener), close: () => (entry.closed = true) };
    opened.push(entry);
    return entry.source;
  };
  return { opened, factory };
}

const marker = { type: "messages_changed", operationId: "op", messageIds: ["m1"] };

describe("system event stream", () => {
  it("shares one EventSource among subscribers and closes it with the last one", () => {
    const { opened, factory } = fakeSources();
    const stream = createSystemEventStream(factory);
    const a: SystemEvent[] = [];
    const b: SystemEvent[] = [];
    const offA = stream.subscribe({ onEvent: (event) => a.push(event) });
    const offB = stream.subscribe({ onEvent: (event) => b.push(event) });
    expect(opened.map((entry) => entry.url)).toEqual(["/api/v1/system/events"]);
    opened[0]!.listeners.get("messages_changed")?.({ data: JSON.stringify(marker) });
    expect(a).toEqual([marker]);
    expect(b).toEqual([marker]);
    offA();
    expect(opened[0]!.closed).toBe(false);
    offB();
    expect(opened[0]!.closed).toBe(true);
    stream.subscribe({ onEvent: () => {} });
    expect(opened).toHaveLength(2);
  });

  it("drops messages that are not a known event", () => {
    const { opened, factory } = fakeSources();
    const seen: SystemEvent[] = [];
    createSystemEventStream(factory).subscribe({ onEvent: (event) => seen.push(event) });
    const emit = (type: string, data: string) => opened[0]!.listeners.get(type)?.({ data });
    emit("messages_changed", "{not json");
    emit("operation", JSON.stringify({ type: "operation", operationId: "op", kind: "analysis", state: "running" }));
    emit("messages_changed", JSON.stringify({ type: "messages_changed", operationId: "op" }));
    expect(seen).toEqual([]);
  });
});
