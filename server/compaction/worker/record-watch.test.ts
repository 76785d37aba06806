import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock, type Timers } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { MINUTE_MS } from "@/server/jobs/schedule";
import { NOW_MS, armPolicy } from "../test-support";
import { createCompactionWorker } from "./worker";
import { baseWorkerDeps } from "./worker-test-support";

const WATCH_MS = 60_000;

// Every timer waits until the test fires it.
function parkedTimers() {
  const parked = new Map<number, { ms: number; fn: () => void }>();
  let seq = 0;
  const timers: Timers = {
    setTimeout(fn, ms) {
      seq += 1;
      parked.set(seq, { ms, fn });
      return seq;
    },
    clearTimeout(handle) {
      parked.delete(handle as number);
    },
  };
  const fire = (ms: number) => {
    const entry = [...parked.entries()].find(([, p]) => p.ms === ms);
    if (!entry) throw new Error(`no timer of ${ms} ms`);
    parked.delete(entry[0]);
    entry[1].fn();
  };
  return { timers, parked, fire };
}

describe("compaction worker: changes made by another process", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = createTestDb();
  });
  afterEach(() => t.close());

  const makeWorker = (options: { watchRecordMs?: number }) => {
    const clock = manualClock(NOW_MS);
    const { timers, parked, fire } = parkedTimers();
    const worker = createCompactionWorker({
      ...baseWorkerDeps(t, { clock, timers }),
      ...options,
    });
    return { worker, parked, fire };
  };

  it("a started worker arms the daily schedule for a policy another process enabled, at its next record watch", async () => {
    const { worker, fire } = makeWorker({ watchRecordMs: WATCH_MS });
    await worker.start();
    expect(worker.nextTimerAt()).toBeNull();
    // The operator CLI enables and approves compaction in the shared record.
    await armPolicy(t.sqlite, { value: 1, unit: "weeks" }, NOW_MS);
    expect(worker.nextTimerAt()).toBeNull();
    fire(WATCH_MS);
    await worker.idle();
    expect(worker.nextTimerAt()).toBe(NOW_MS + MINUTE_MS);
    await worker.stop();
  });

  it("a foreground worker (the CLI's) neither watches nor schedules; stop clears the watch", async () => {
    const foreground = makeWorker({ watchRecordMs: WATCH_MS });
    await armPolicy(t.sqlite, { value: 1, unit: "weeks" }, NOW_MS);
    foreground.worker.startForeground();
    expect(foreground.parked.size).toBe(0);
    expect(foreground.worker.nextTimerAt()).toBeNull();
    await foreground.worker.stop();

    const server = makeWorker({ watchRecordMs: WATCH_MS });
    await server.worker.start();
    expect([...server.parked.values()].some((p) => p.ms === WATCH_MS)).toBe(true);
    await server.worker.stop();
    expect(server.parked.size).toBe(0);
  });
});
