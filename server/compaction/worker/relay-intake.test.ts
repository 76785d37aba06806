// The lease holder's watch for cancels whose relayed notification was lost:
// it reads the record after its own operation events and on its timer, hands
// each requested cancel to the worker once, and only while it holds the lease.
import { describe, expect, it } from "vitest";
import { createEventBus } from "@/server/events/bus";
import { createLogger } from "@/server/log";
import type { RelayedCommand } from "./command-relay";
import { watchRequestedCancels } from "./relay-intake";

function setUp() {
  // A fired body may be asynchronous (it reads the record): tick() waits for it.
  const fired: Array<() => unknown> = [];
  const timers = {
    setTimeout: (fn: () => unknown) => {
      fired.push(fn);
      return fired.length;
    },
    clearTimeout: () => undefined,
  };
  const bus = createEventBus();
  const state = { requested: null as string | null, holds: true, reads: 0 };
  const delivered: RelayedCommand[] = [];
  const watch = watchRequestedCancels({
    readRequested: async () => {
      state.reads += 1;
      return state.requested;
    },
    bus,
    timers,
    everyMs: 60_000,
    holds: () => state.holds,
    deliver: (command) => void delivered.push(command),
    log: createLogger({ level: "silent" }),
  });
  const tick = async () => {
    await fired.shift()?.();
  };
  const batch = async (operationId: string) => {
    bus.publish({ type: "operation", operationId, kind: "cleanup", state: "running", progress: { scannedRows: 0, eligibleMessages: 0, changedMessages: 0, payloadBytes: 0, fraction: null } });
    await Promise.resolve();
  };
  return { state, delivered, watch, tick, batch, bus };
}

describe("requested cancels found in the record", () => {
  it("delivers a requested cancel once, at the holder's next operation event", async () => {
    const { state, delivered, batch } = setUp();
    await batch("pass");
    expect(delivered).toEqual([]);
    state.requested = "pass";
    await batch("pass");
    await batch("pass");
    expect(delivered).toEqual([{ kind: "cancel", operationId: "pass" }]);
  });

  it("finds it on its timer while nothing runs (a pass between slices), and only while holding the lease", async () => {
    const { state, delivered, tick } = setUp();
    state.requested = "waiting-pass";
    state.holds = false;
    await tick();
    expect(delivered).toEqual([]);
    expect(state.reads).toBe(0);
    state.holds = true;
    await tick();
    expect(delivered).toEqual([{ kind: "cancel", operationId: "waiting-pass" }]);
  });

  it("stops reading once stopped", async () => {
    const { state, watch, batch, tick, bus } = setUp();
    watch.stop();
    state.requested = "pass";
    await batch("pass");
    await tick();
    expect(state.reads).toBe(0);
    expect(bus.size()).toBe(0);
  });
});
