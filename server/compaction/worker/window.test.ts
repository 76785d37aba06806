// The maintenance window at the worker boundary, on an injected clock:
// scheduled and initial passes wait for it, a running pass pauses at the
// next batch boundary when it closes, and a confirmed manual run overrides it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock, type Timers } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createEventBus } from "@/server/events/bus";
import { sequentialIds } from "@/server/ids";
import { parseMaintenanceWindow, type MaintenanceWindow } from "@/server/jobs/maintenance-window";
import { savePolicy } from "../policy/policy-update";
import { NOW_MS, countMarkedRows, seedOldTask, storeOf, readRecordSync } from "../test-support";
import { createCompactionWorker } from "./worker";
import { baseWorkerDeps } from "./worker-test-support";

// NOW_MS is 2025-07-08T00:00Z: 01:00 in Lisbon (WEST, UTC+1).
const at = (iso: string) => Date.parse(iso);
const age = { value: 1, unit: "weeks" as const };

function windowOf(text: string): MaintenanceWindow {
  const parsed = parseMaintenanceWindow(text);
  if (!parsed || "error" in parsed) throw new Error(text);
  return parsed;
}

let t: TestDb;
beforeEach(async () => {
  t = createTestDb();
});
afterEach(() => t.close());

function makeWorker(window: MaintenanceWindow, startMs = NOW_MS) {
  const clock = manualClock(startMs);
  const parked: Array<{ fn: () => void; id: number }> = [];
  let seq = 0;
  const timers: Timers = {
    setTimeout(fn, ms) {
      if (ms <= 1000) return setTimeout(fn, 0);
      const id = ++seq;
      parked.push({ fn, id });
      return { parked: id };
    },
    clearTimeout(handle) {
      if (handle && typeof handle === "object" && "parked" in handle) {
        const i = parked.findIndex((p) => p.id === (handle as { parked: number }).parked);
        if (i >= 0) parked.splice(i, 1);
      } else clearTimeout(handle as NodeJS.Timeout);
    },
  };
  const bus = createEventBus();
  const worker = createCompactionWorker({
    ...baseWorkerDeps(t, { clock, timers, bus }),
    pass: { yieldMs: 0, maxBatchRows: 2 },
    window,
  });
  /** Moves the clock to the parked timer's instant and fires it. */
  const fireAt = (ms: number) => {
    clock.set(ms);
    parked.shift()?.fn();
  };
  return { worker, clock, bus, parked, fireAt };
}

function record() {
  const read = readRecordSync(t.sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}

const arm = (nowMs = NOW_MS) =>
  savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs, newId: sequentialIds("p") });

describe("maintenance window in the compaction worker", () => {
  it("a scheduled pass outside the window waits for its start, then runs", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    await arm();
    const { worker, fireAt } = makeWorker(windowOf("03:00-05:00 Europe/Lisbon"));
    await worker.start();
    // Overdue: one minute after readiness would be 00:01Z; the window opens at 03:00 WEST = 02:00Z.
    expect(worker.nextTimerAt()).toBe(at("2025-07-08T02:00:00Z"));
    fireAt(at("2025-07-08T02:00:00Z"));
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(2);
    await worker.stop();
  });

  it("the initial pass after a save outside the window waits for the window", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    const { worker, fireAt } = makeWorker(windowOf("03:00-05:00 Europe/Lisbon"));
    await worker.start();
    await worker.policySaved((await arm()).effects);
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(0);
    expect(worker.nextTimerAt()).toBe(at("2025-07-08T02:00:00Z"));
    fireAt(at("2025-07-08T02:00:00Z"));
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(2);
    await worker.stop();
  });

  it("a running pass pauses at the next batch boundary when the window closes and resumes at the next start", async () => {
    for (const id of ["task-a", "task-b", "task-c"]) seedOldTask(t.sqlite, id, 2);
    const { worker, clock, bus, fireAt } = makeWorker(windowOf("01:00-05:00 Europe/Lisbon"));
    // The window closes while the first batch commits (05:30 WEST).
    const unsubscribe = bus.subscribe((event) => {
      if (event.type === "messages_changed") clock.set(at("2025-07-08T04:30:00Z"));
    });
    await worker.start();
    await worker.policySaved((await arm()).effects);
    await worker.idle();
    unsubscribe();
    const changed = countMarkedRows(t.sqlite);
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(6);
    expect(record().runtime.activeOperation).toMatchObject({ kind: "cleanup", state: "running" });
    expect(record().runtime.cursor).not.toBeNull();
    // Next opening: 01:00 WEST on 9 July = 00:00Z.
    expect(worker.nextTimerAt()).toBe(at("2025-07-09T00:00:00Z"));
    fireAt(at("2025-07-09T00:00:00Z"));
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(6);
    expect(record().runtime.latestRun).toMatchObject({ state: "succeeded", changedMessages: 6 });
    await worker.stop();
  });

  it("a save confirmed outside the window runs its initial pass now, also after a backup preparation", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    const { worker } = makeWorker(windowOf("03:00-05:00 Europe/Lisbon"));
    await worker.start();
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("p") });
    expect(saved.effects.startPreparation).not.toBeNull();
    await worker.policySaved(saved.effects, { outsideWindow: true });
    await worker.idle();
    expect(record().runtime.preparation).toMatchObject({ state: "ready", choice: "backup" });
    expect(countMarkedRows(t.sqlite)).toBe(2);
    expect(record().runtime.latestRun).toMatchObject({ state: "succeeded", changedMessages: 2 });
    await worker.stop();
  });

  it("a manual run outside the window is refused unless confirmed; confirmed, it runs to its end", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    await arm();
    const { worker } = makeWorker(windowOf("03:00-05:00 Europe/Lisbon"));
    await worker.start();
    await expect(worker.requestRun(1)).rejects.toThrow(expect.objectContaining({ code: "outside_maintenance_window" }));
    await worker.requestRun(1, { outsideWindow: true });
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(2);
    await worker.stop();
  });

  it("across the DST change in Europe/Lisbon (29 Mar 2026) a scheduled pass starts at 02:00 WEST, the first instant of 01:00-05:00", async () => {
    await arm(at("2026-03-28T12:00:00Z"));
    const { worker } = makeWorker(windowOf("01:00-05:00 Europe/Lisbon"), at("2026-03-28T12:00:00Z"));
    await worker.start();
    // Not the day before's 01:00Z: it is past; 01:00 local does not exist on the 29th.
    expect(worker.nextTimerAt()).toBe(at("2026-03-29T01:00:00Z"));
    await worker.stop();
  });

  it("across the DST change in America/New_York (1 Nov 2026) a scheduled pass starts at the first 01:30", async () => {
    await arm(at("2026-10-31T20:00:00Z"));
    const { worker } = makeWorker(windowOf("01:30-03:00 America/New_York"), at("2026-10-31T20:00:00Z"));
    await worker.start();
    expect(worker.nextTimerAt()).toBe(at("2026-11-01T05:30:00Z"));
    await worker.stop();
  });
});
