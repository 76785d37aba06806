// The deadline can't starve a pass (issue 11, deliver 5) and the in-batch
// re-check reads indexed facts only (deliver 4). Slowness is injected: a
// store wrapper advances the manual clock on every probe of one task, and a
// temp trigger advances it on every row write; nothing sleeps.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import type { CompactionStore } from "../store";
import { runCleanupPass } from "./pass";
import { NOW_MS, armPolicy, insertMessage, seedOldTask, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-starve-");
  await armPolicy(t.sqlite);
});
afterEach(() => t.close());

const PROBES = new Set([
  "readTaskActivity",
  "listSessionActivity",
  "summarizeTurns",
  "latestMessageUpdate",
  "latestMessageCreation",
  "hasUnparsedMessageUpdate",
  "hasUnparsedMessageCreation",
  "hasPendingInput",
  "hasForeignTurnMessage",
  "hasQueuedMessage",
  "findUnfinishedRunState",
  "readSessionWatermark",
]);

type Slowness = { taskId: string; probeMs: number; writerProbeMs?: number };

/** A store whose probes of one task advance `clock`; records the verbs called inside the writer. */
function slowStore(clock: { advance(ms: number): void }, slow: Slowness, inWriter: string[] = []): CompactionStore {
  const inner = storeOf(t.sqlite);
  const wrapped: CompactionStore = new Proxy(inner, {
    get(target, name: string) {
      if (name === "writeTransaction") return <T,>(fn: (tx: CompactionStore) => Promise<T>) => target.writeTransaction(() => fn(wrapped));
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (PROBES.has(name)) {
          if (target.inWriteTransaction()) inWriter.push(name);
          const arg = String(args[0]);
          const mine = arg === slow.taskId || arg.startsWith(`${slow.taskId}-`);
          if (mine) clock.advance(target.inWriteTransaction() ? (slow.writerProbeMs ?? slow.probeMs) : slow.probeMs);
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return wrapped;
}

/** Every metadata write advances the clock by `ms` (the writer's own statements). */
function slowWrites(clock: { advance(ms: number): void }, ms: number) {
  t.sqlite.function("advance_clock", () => {
    clock.advance(ms);
    return 0;
  });
  t.sqlite.exec("create temp trigger slow_write after update of metadata on messages begin select advance_clock(); end");
}

const marked = (prefix: string) =>
  (t.sqlite.prepare("select count(*) as n from messages where id like ? and json_extract(metadata, '$.payload_retention') is not null").get(`${prefix}-%`) as { n: number }).n;

describe("a slow task cannot starve the pass", () => {
  it("[TPR-BAT-07] checks of 187 ms plus 100 ms of writes commit: the deadline counts only the writer's statements", async () => {
    seedOldTask(t.sqlite, "a", 5);
    seedOldTask(t.sqlite, "b", 5);
    const clock = manualClock(NOW_MS);
    // The full probe: 11 x 17 ms = 187 ms; the in-batch re-check: 7 x 26 ms
    // = 182 ms. Both fit the 200 ms eligibility budget, but with even one
    // 20 ms write a deadline started before the checks is always overrun.
    const store = slowStore(clock, { taskId: "a", probeMs: 17, writerProbeMs: 26 });
    slowWrites(clock, 20);
    const result = await runCleanupPass({ store, clock, operationId: "run-1", wait: async () => {}, workBudgetMs: 1e9 });
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation?.skipped.statement_deadline).toBeUndefined();
    expect(marked("a")).toBe(5);
    expect(marked("b")).toBe(5);
  });

  it("[TPR-ELIG-16] a task whose checks alone exceed the budget is skipped as eligibility_budget; later tasks are compacted", async () => {
    seedOldTask(t.sqlite, "a", 5);
    seedOldTask(t.sqlite, "b", 5);
    const clock = manualClock(NOW_MS);
    const result = await runCleanupPass({ store: slowStore(clock, { taskId: "a", probeMs: 25 }), clock, operationId: "run-1", wait: async () => {}, workBudgetMs: 1e9 });
    expect(result).toMatchObject({ state: "partial", reason: "complete" });
    expect(result.operation).toMatchObject({ errorCode: "eligibility_budget", skipped: { eligibility_budget: 1 }, eligibleTasks: 1 });
    expect(marked("a")).toBe(0);
    expect(marked("b")).toBe(5);
  });

  it("[TPR-ELIG-16] a probe that overran once (a busy moment) is tried once more before the task is skipped", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const clock = manualClock(NOW_MS);
    let overruns = 1;
    const inner = storeOf(t.sqlite);
    const store: CompactionStore = {
      ...inner,
      writeTransaction: (fn) => inner.writeTransaction(() => fn(store)),
      hasForeignTurnMessage: (sessionId) => {
        if (!inner.inWriteTransaction() && overruns-- > 0) clock.advance(250);
        return inner.hasForeignTurnMessage(sessionId);
      },
    };
    const result = await runCleanupPass({ store, clock, operationId: "run-1", wait: async () => {}, workBudgetMs: 1e9 });
    expect(result).toMatchObject({ state: "succeeded" });
    expect(result.operation?.skipped.eligibility_budget).toBeUndefined();
    expect(marked("a")).toBe(3);
  });

  it("[TPR-ELIG-16] an in-batch re-check over its budget skips the task, the cursor moves past it and the next task is compacted", async () => {
    seedOldTask(t.sqlite, "a", 5);
    seedOldTask(t.sqlite, "b", 5);
    const clock = manualClock(NOW_MS);
    const store = slowStore(clock, { taskId: "a", probeMs: 0, writerProbeMs: 60 });
    const cursors: Array<string | null> = [];
    const result = await runCleanupPass({
      store,
      clock,
      operationId: "run-1",
      wait: async () => {},
      workBudgetMs: 1e9,
      onBatch: () => {
        const row = t.sqlite.prepare("select json_extract(value, '$.runtime.cursor.afterTaskId') as at from settings where key like '%retention%'").get() as { at: string | null } | undefined;
        cursors.push(row?.at ?? null);
      },
    });
    expect(result.operation).toMatchObject({ errorCode: "eligibility_budget", skipped: { eligibility_budget: 1 }, eligibleTasks: 1, changedMessages: 5 });
    expect(marked("a")).toBe(0);
    expect(marked("b")).toBe(5);
    expect(cursors).toEqual(["b"]);
  });
});

describe("the in-batch re-check reads indexed facts only", () => {
  it("[TPR-TX-01] no whole-session scan runs inside the writer; the full probe runs once per task before its batches", async () => {
    seedOldTask(t.sqlite, "a", 250);
    const clock = manualClock(NOW_MS);
    const inWriter: string[] = [];
    const result = await runCleanupPass({ store: slowStore(clock, { taskId: "none", probeMs: 0 }, inWriter), clock, operationId: "run-1", wait: async () => {} });
    expect(result.operation?.changedMessages).toBe(250);
    expect(inWriter.length).toBeGreaterThan(0);
    for (const scan of ["summarizeTurns", "hasForeignTurnMessage", "hasPendingInput"]) expect(inWriter).not.toContain(scan);
  });

  it("[TPR-TX-01] a message added after the probe, even with an old timestamp, makes the task wait for the next pass", async () => {
    seedOldTask(t.sqlite, "a", 3);
    let added = false;
    const result = await runCleanupPass({
      store: storeOf(t.sqlite),
      clock: manualClock(NOW_MS),
      operationId: "run-1",
      wait: async () => {},
      beforeBatch: () => {
        if (added) return;
        added = true;
        insertMessage(t.sqlite, { id: "a-late", sessionId: "a-s1", turnId: "a-u1", type: "message" });
      },
    });
    expect(result.operation).toMatchObject({ changedMessages: 0, skipped: { recent_activity: 1 } });
    expect(marked("a")).toBe(0);
  });
});
