import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { openDatabase } from "@/server/db/client";
import { createEventBus } from "@/server/events/bus";
import { sequentialIds } from "@/server/ids";
import type { SystemEvent } from "@/lib/events/api";
import { savePolicy } from "../policy/policy-update";
import { NOW_MS, countMarkedRows, seedOldTask, storeOf } from "../test-support";
import { threadTestBed } from "../thread/thread-test-support";
import { createCompactionWorker, type CompactionWorkerDeps } from "./worker";
import { newPassThreadState } from "./worker-types";
import { baseWorkerDeps, hybridTimers } from "./worker-test-support";

const bed = threadTestBed("ws-thread-events-");

/** Saves an enabled policy (preparation skipped) on `file` and lets the worker run the initial pass; returns the bus's events. */
async function initialPass(file: string, passThread: CompactionWorkerDeps["passThread"], passThreadState = newPassThreadState()): Promise<SystemEvent[]> {
  const handle = openDatabase({ file, migrate: false });
  const events: SystemEvent[] = [];
  const bus = createEventBus();
  bus.subscribe((e) => events.push(e));
  const { timers } = hybridTimers();
  const worker = createCompactionWorker({
    ...baseWorkerDeps({ ...handle, dir: bed.t.dir, db: wrapSqliteDb(handle, { reader: false }), close: () => handle.sqlite.close() }, { clock: manualClock(NOW_MS), timers, bus }),
    pass: { yieldMs: 0, maxBatchRows: 10 },
    passThread,
    passThreadState,
  });
  try {
    await worker.start();
    const saved = await savePolicy(storeOf(handle.sqlite), { draft: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(saved.effects);
    await worker.idle();
    expect(countMarkedRows(handle.sqlite)).toBe(25);
    await worker.stop();
  } finally {
    handle.sqlite.close();
  }
  return events;
}

describe("compaction worker with its cleanup on a thread", () => {
  it("[TPR-TX-08] publishes the thread's committed batches and the pass's progress on the main thread's bus, as the inline pass does", async () => {
    seedOldTask(bed.t.sqlite, "a", 25);
    bed.t.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const copy = path.join(bed.t.dir, "copy.db");
    fs.copyFileSync(bed.t.file, copy);

    const inlineRuntime = newPassThreadState();
    const threadRuntime = newPassThreadState();
    const inlineEvents = await initialPass(copy, null, inlineRuntime);
    const threadEvents = await initialPass(bed.t.file, { bundlePath: bed.bundlePath, fixedClock: true }, threadRuntime);
    // Counted on the state of the runtime whose worker ran it, never on another's.
    expect(threadRuntime).toEqual({ unavailable: false, started: 1, running: 0 });
    expect(inlineRuntime).toEqual({ unavailable: false, started: 0, running: 0 });

    const changed = (events: SystemEvent[]) => events.filter((e) => e.type === "messages_changed");
    expect(changed(threadEvents).map((e) => e.messageIds.length)).toEqual([10, 10, 5]);
    expect(changed(threadEvents)).toEqual(changed(inlineEvents));
    // Every committed batch is followed by the operation's progress; the last event is the pass's end.
    const operations = (events: SystemEvent[]) => events.filter((e) => e.type === "operation");
    expect(operations(threadEvents).length).toBe(operations(inlineEvents).length);
    expect(threadEvents.at(-1)).toEqual(inlineEvents.at(-1));
    expect(threadEvents.at(-1)).toMatchObject({ type: "operation", kind: "cleanup", state: "succeeded" });
    // Ids and counts only: no bodies travel on the bus.
    expect(JSON.stringify(threadEvents)).not.toContain("npm test");
  });
});
