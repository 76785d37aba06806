// @vitest-environment jsdom
import { act, cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import type { EventSourceLike } from "./event-stream";
import { useSystemEvents } from "./use-system-events";

afterEach(cleanup);

function fakeFactory() {
  const sources: { listeners: Map<string, (event: { data: string }) => void>; closed: boolean; source: EventSourceLike }[] = [];
  const factory = () => {
    const entry = { listeners: new Map<string, (event: { data: string }) => void>(), closed: false, source: null as unknown as EventSourceLike };
    entry.source = { addEventListener: (type, listener) => entry.listeners.set(type, listener), close: () => (entry.closed = true) };
    sources.push(entry);
    return entry.source;
  };
  return { sources, factory };
}

describe("useSystemEvents", () => {
  it("gives every consumer the same stream over one EventSource, reports it live, and closes it with the last consumer", () => {
    const { sources, factory } = fakeFactory();
    const seenA: SystemEvent[] = [];
    const seenB: SystemEvent[] = [];
    const a = renderHook(() => useSystemEvents({ onEvent: (event) => seenA.push(event), source: factory }));
    const b = renderHook(() => useSystemEvents({ onEvent: (event) => seenB.push(event), source: factory }));
    expect(sources).toHaveLength(1);

    act(() => sources[0]!.source.onopen?.(new Event("open")));
    expect(a.result.current.live).toBe(true);
    const marker = { type: "messages_changed" as const, operationId: "op", messageIds: ["m1"] };
    act(() => sources[0]!.listeners.get("messages_changed")?.({ data: JSON.stringify(marker) }));
    expect(seenA).toEqual([marker]);
    expect(seenB).toEqual([marker]);

    a.unmount();
    expect(sources[0]!.closed).toBe(false);
    b.unmount();
    expect(sources[0]!.closed).toBe(true);
  });

  it("opens nothing while disabled", () => {
    const { sources, factory } = fakeFactory();
    renderHook(() => useSystemEvents({ onEvent: () => {}, enabled: false, source: factory }));
    expect(sources).toHaveLength(0);
  });
});
