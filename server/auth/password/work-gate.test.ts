import { describe, expect, it } from "vitest";
import { isAppError } from "@/server/errors";
import { createWorkGate } from "./work-gate";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("work gate", () => {
  it("runs at most `concurrency` at once, in arrival order, and refuses past the queue", async () => {
    const gate = createWorkGate({ concurrency: 2, maxWaiting: 2 });
    const blockers = [deferred(), deferred(), deferred(), deferred()];
    const order: number[] = [];
    const runs = blockers.map((b, i) => gate.run(async () => { order.push(i); await b.promise; return i; }));
    await Promise.resolve();
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 2 });
    expect(gate.isFull()).toBe(true);
    const refused = await gate.run(async () => 99).catch((error: unknown) => error);
    expect(isAppError(refused) && refused.code).toBe("too_many_requests");
    blockers[0]!.resolve();
    // A newcomer arriving while the slot is handed over queues instead of overtaking.
    await runs[0];
    expect(gate.stats().running).toBe(2);
    for (const b of blockers) b.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(gate.stats()).toEqual({ running: 0, waiting: 0, peak: 2, total: 4 });
  });
});
