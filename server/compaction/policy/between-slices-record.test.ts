// The record side of commands accepted on an instance without the worker
// lease: a manual job takes the slot only from a pass that its worker
// recorded as waiting between slices (never from one running a slice), and
// an accepted cancel stays in the record for the lease holder to find.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { sequentialIds } from "@/server/ids";
import { armPolicy, NOW_MS, storeOf, readRecordSync } from "../test-support";
import { acceptAnalysis, acceptCancel, acceptCleanup, type CommandContext } from "./commands";
import { markActiveRunning, resumeWaitingCleanup } from "./operations";
import { markBetweenSlices } from "./between-slices";
import type { CompactionRecord } from "./policy-schema";

let t: TestDb;
let newId: () => string;
beforeEach(async () => {
  t = createTestDb();
  newId = sequentialIds("op");
});
afterEach(() => t.close());

const ctx = (): CommandContext => ({ store: storeOf(t.sqlite), nowMs: NOW_MS, newId });
const runtime = (): CompactionRecord["runtime"] => (readRecordSync(t.sqlite) as { record: CompactionRecord }).record.runtime;

/** A cleanup pass in the slot that has run a slice. */
async function passInSlot(): Promise<{ revision: number; passId: string }> {
  const revision = await armPolicy(t.sqlite);
  const { operationId } = await acceptCleanup(ctx(), { expectedRevision: revision, priority: "scheduled" });
  expect(await markActiveRunning(storeOf(t.sqlite), { operationId, nowMs: NOW_MS })).not.toBeNull();
  return { revision, passId: operationId };
}

describe("between slices, as recorded for other instances", () => {
  it("[TPR-SCH-01] a relayed compact now takes the slot only while the pass is recorded between slices", async () => {
    const { revision, passId } = await passInSlot();
    const relayed = () => acceptCleanup({ ...ctx(), newId: () => "manual" }, { expectedRevision: revision, priority: "manual", waitingFromRecord: true });
    // Running a slice (nothing recorded): the manual run meets it.
    await expect(relayed()).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));

    expect(await markBetweenSlices(storeOf(t.sqlite), { operationId: passId, nowMs: NOW_MS })).toBe(true);
    expect(runtime().betweenSlices).toBe(passId);
    // Its next slice starts first: the mark is gone, the manual run meets it again.
    await markActiveRunning(storeOf(t.sqlite), { operationId: passId, nowMs: NOW_MS });
    expect(runtime().betweenSlices ?? null).toBeNull();
    await expect(relayed()).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));

    await markBetweenSlices(storeOf(t.sqlite), { operationId: passId, nowMs: NOW_MS });
    expect(await relayed()).toEqual({ operationId: "manual" });
    expect(runtime()).toMatchObject({ activeOperation: { id: "manual", state: "queued" }, waitingCleanup: { id: passId }, betweenSlices: null });
    // The stepped-aside pass cannot start a slice until it is back in the slot.
    expect(await markActiveRunning(storeOf(t.sqlite), { operationId: passId, nowMs: NOW_MS })).toBeNull();
    await expect(acceptAnalysis(ctx(), { age: { value: 1, unit: "weeks" }, waitingFromRecord: true })).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
  });

  it("a relayed analysis steps a recorded between-slices pass aside too; it returns to the slot afterwards", async () => {
    const { passId } = await passInSlot();
    await markBetweenSlices(storeOf(t.sqlite), { operationId: passId, nowMs: NOW_MS });
    const { operationId } = await acceptAnalysis(ctx(), { age: { value: 1, unit: "weeks" }, waitingFromRecord: true });
    expect(runtime()).toMatchObject({ activeOperation: { id: operationId, kind: "analysis" }, waitingCleanup: { id: passId } });
    await acceptCancel(ctx(), { operationId });
    expect(await resumeWaitingCleanup(storeOf(t.sqlite), NOW_MS)).toBe(passId);
  });

  it("a cancel of a running operation is recorded once for the lease holder", async () => {
    const { passId } = await passInSlot();
    expect(await acceptCancel(ctx(), { operationId: passId })).toEqual({ kind: "cleanup", queued: false });
    expect(runtime()).toMatchObject({ cancelRequested: passId, activeOperation: { id: passId, state: "running" } });
    const before = t.sqlite.prepare("select value from settings where key = 'tool_payload_retention'").pluck().get();
    await acceptCancel(ctx(), { operationId: passId });
    expect(t.sqlite.prepare("select value from settings where key = 'tool_payload_retention'").pluck().get()).toBe(before);
  });
});
