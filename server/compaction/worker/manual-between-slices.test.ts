// "Manual jobs take priority over the next scheduled pass" (issue 12, item 7):
// a manual analysis or "compact now" takes the slot while a multi-slice
// cleanup waits for its continuation; the pass then resumes from its own
// cursor with its counts. A duplicate manual request still answers 409.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { sequentialIds } from "@/server/ids";
import type { SystemEvent } from "@/lib/events/api";
import { savePolicy } from "../policy/policy-update";
import { NOW_MS, countMarkedRows, seedOldTask, storeOf } from "../test-support";
import { makeTestWorker, readRecordOf } from "./worker-test-support";

let t: TestDb;
let events: SystemEvent[];
beforeEach(async () => {
  t = createTestDb();
  events = [];
});
afterEach(() => t.close());

const age = { value: 1, unit: "weeks" as const };
const record = () => readRecordOf(t);

/**
 * A pass that ends a slice after every committed batch: each batch moves the
 * clock past the 30 s work budget. `slicing.on = false` lets a pass run whole.
 */
function slicedWorker() {
  // One batch per task (2 rows): every batch ends a slice.
  const made = makeTestWorker({ t, events, overrides: { pass: { yieldMs: 0, maxBatchRows: 2 } } });
  const slicing = { on: true };
  made.bus.subscribe((event) => {
    if (slicing.on && event.type === "messages_changed") made.clock.advance(31_000);
  });
  return { ...made, slicing };
}

async function startThreeSlicePass() {
  for (const task of ["task-a", "task-b", "task-c"]) seedOldTask(t.sqlite, task, 2);
  const made = slicedWorker();
  await made.worker.start();
  const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
  await made.worker.policySaved(saved.effects);
  await made.worker.idle();
  const pass = record().runtime.activeOperation!;
  expect(pass).toMatchObject({ kind: "cleanup", state: "running", changedMessages: 2 });
  expect(made.parked).toHaveLength(1);
  return { ...made, pass };
}

describe("manual jobs between slices of a waiting cleanup", () => {
  it("[TPR-SCH-01] compact now runs between slices of a waiting 3-slice pass, which then resumes from its cursor; a duplicate is 409", async () => {
    const { worker, parked, fireNext, slicing, pass } = await startThreeSlicePass();
    fireNext(); // slice 2
    await worker.idle();
    expect(record().runtime.activeOperation).toMatchObject({ id: pass.id, changedMessages: 4 });
    expect(countMarkedRows(t.sqlite)).toBe(4);

    // Rows the waiting pass never sees (written after its upper bounds).
    seedOldTask(t.sqlite, "task-d", 2);
    slicing.on = false;
    const revision = record().policy.revision;
    // Status can tell the card the pass is between slices.
    expect(await worker.betweenSlices?.()).toBe(pass.id);
    const { operationId } = await worker.requestRun(revision);
    expect(await worker.betweenSlices?.()).toBeNull();
    expect(record().runtime.activeOperation).toMatchObject({ id: operationId, kind: "cleanup", state: "queued" });
    expect(record().runtime.waitingCleanup).toMatchObject({ id: pass.id });
    await expect(worker.requestRun(revision)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
    await expect(worker.requestAnalysis(age)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
    await worker.idle();
    expect(record().runtime.latestRun).toMatchObject({ id: operationId, state: "succeeded", changedMessages: 4 });
    expect(countMarkedRows(t.sqlite)).toBe(8);

    // The pass is back in the slot with its continuation and its own cursor.
    expect(record().runtime.activeOperation).toMatchObject({ id: pass.id, kind: "cleanup", changedMessages: 4 });
    expect(record().runtime.cursor?.operationId).toBe(pass.id);
    expect(record().runtime.waitingCleanup ?? null).toBeNull();
    expect(parked).toHaveLength(1);
    fireNext(); // slice 3: task-c was compacted by the manual run; the pass ends
    await worker.idle();
    expect(record().runtime.activeOperation).toBeNull();
    expect(record().runtime.latestRun).toMatchObject({ id: pass.id, state: "succeeded", changedMessages: 4 });
    await worker.stop();
  });

  it("[TPR-SCH-01] a manual analysis runs between slices of a waiting 3-slice pass, which then resumes with its counts", async () => {
    const { worker, fireNext, pass } = await startThreeSlicePass();
    const { operationId } = await worker.requestAnalysis(age);
    expect(record().runtime.activeOperation).toMatchObject({ id: operationId, kind: "analysis" });
    await expect(worker.requestAnalysis(age)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
    await worker.idle();
    expect(record().runtime.latestAnalysis).toMatchObject({ id: operationId, state: "succeeded", eligibleMessages: 4 });
    expect(record().runtime.activeOperation).toMatchObject({ id: pass.id, changedMessages: 2 });
    fireNext(); // slice 2
    await worker.idle();
    fireNext(); // slice 3
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(6);
    expect(record().runtime.latestRun).toMatchObject({ id: pass.id, state: "succeeded", changedMessages: 6 });
    await worker.stop();
  });

  it("[TPR-BAT-03] a restart while the manual job holds the slot puts the waiting pass back with its own cursor and counts", async () => {
    const { worker, pass } = await startThreeSlicePass();
    const before = record().runtime.cursor;
    await worker.requestAnalysis(age);
    await worker.stop();
    expect(record().runtime.waitingCleanup).toMatchObject({ id: pass.id });
    const restarted = slicedWorker();
    await restarted.worker.start();
    expect(record().runtime.activeOperation).toMatchObject({ id: pass.id, changedMessages: 2 });
    expect(record().runtime.cursor).toEqual(before);
    restarted.fireNext(); // slice 2 after readiness
    await restarted.worker.idle();
    restarted.fireNext(); // slice 3
    await restarted.worker.idle();
    expect(record().runtime.latestRun).toMatchObject({ id: pass.id, state: "succeeded", changedMessages: 6 });
    await restarted.worker.stop();
  });

  it("[TPR-API-05] a pass that stepped aside for a manual job can be cancelled by its id", async () => {
    const { worker, parked, pass } = await startThreeSlicePass();
    const { operationId } = await worker.requestAnalysis(age);
    await worker.cancel(pass.id);
    expect(record().runtime.latestRun).toMatchObject({ id: pass.id, state: "cancelled", changedMessages: 2 });
    expect(events).toContainEqual(expect.objectContaining({ type: "operation", operationId: pass.id, state: "cancelled" }));
    await worker.idle();
    expect(record().runtime.latestAnalysis).toMatchObject({ id: operationId, state: "succeeded" });
    // Nothing comes back into the slot; the next pass is the daily schedule's.
    expect(record().runtime.activeOperation).toBeNull();
    expect(parked.length).toBeLessThanOrEqual(1);
    await worker.stop();
  });

  it("saving a longer period while a pass is parked between slices stops it and starts a fresh pass under the new revision", async () => {
    const { worker, slicing, pass } = await startThreeSlicePass();
    slicing.on = false;
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: { value: 2, unit: "weeks" } }, expectedRevision: 1, nowMs: NOW_MS, newId: sequentialIds("q") });
    expect(saved.effects.stopOperations).toEqual([pass.id]);
    await worker.policySaved(saved.effects);
    expect(record().runtime.activeOperation?.id).not.toBe(pass.id);
    await worker.idle();
    const runs = events.flatMap((e) => (e.type === "operation" && e.operationId === pass.id ? [e.state] : []));
    expect(runs.at(-1)).toBe("cancelled");
    expect(record().runtime.latestRun).toMatchObject({ state: "succeeded", revision: 2, changedMessages: 4 });
    expect(countMarkedRows(t.sqlite)).toBe(6);
    await worker.stop();
  });
});
