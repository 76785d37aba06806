// A held task is never compacted: eligibility names it `held` before any
// other reason, a pass leaves every row of it byte-identical and counts it
// apart, and a hold committed after the task's probe still keeps it out
// (the batch re-reads the hold inside its writer transaction).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { runAnalysis } from "../analysis/analysis";
import { runCleanupPass } from "../cleanup/pass";
import { checkTaskEligibility } from "../eligibility/eligibility";
import { CUTOFF_MS, NOW_MS, armPolicy, seedOldTask, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-held-");
  await armPolicy(t.sqlite);
});
afterEach(() => t.close());

const hold = (taskId: string) =>
  t.sqlite.prepare("insert into task_holds (task_id, held_at, held_at_ms, held_by) values (?, '2025-01-02T00:00:00.000Z', 1735776000000, 'u-admin')").run(taskId);
const bodies = (taskId: string) =>
  t.sqlite.prepare("select m.id, m.metadata, m.updated_at from messages m join task_sessions s on s.id = m.session_id where s.task_id = ? order by m.rowid").all(taskId);
const pass = (extra: Partial<Parameters<typeof runCleanupPass>[0]> = {}) =>
  runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, ...extra });

describe("held tasks", () => {
  it("eligibility answers held, before every other reason (even for a live task)", async () => {
    seedOldTask(t.sqlite, "t1");
    hold("t1");
    const check = () => checkTaskEligibility({ store: storeOf(t.sqlite), taskId: "t1", cutoffMs: CUTOFF_MS, clock: manualClock(0) });
    expect(await check()).toEqual({ eligible: false, reason: "held" });
    t.sqlite.prepare("update tasks set state = 'IN_PROGRESS' where id = 't1'").run();
    expect(await check()).toEqual({ eligible: false, reason: "held" });
    t.sqlite.prepare("delete from task_holds").run();
    expect(await check()).toEqual({ eligible: false, reason: "live_task" });
  });

  it("a pass leaves the held task byte-identical, compacts the others and counts the hold apart", async () => {
    seedOldTask(t.sqlite, "a", 3);
    seedOldTask(t.sqlite, "b", 3);
    hold("b");
    const before = bodies("b");
    const result = await pass();
    expect(result.state).toBe("succeeded");
    expect(result.operation).toMatchObject({ changedMessages: 3, eligibleTasks: 1, skipped: { held: 1 } });
    expect(bodies("b")).toEqual(before);
    expect(bodies("a").every((row) => String((row as { metadata: string }).metadata).includes('"payload_retention"'))).toBe(true);
  });

  it("analysis counts the held task under held and estimates only the others", async () => {
    seedOldTask(t.sqlite, "a", 2);
    seedOldTask(t.sqlite, "b", 2);
    hold("a");
    const analysis = await runAnalysis({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId: "an-1", age: { value: 1, unit: "weeks" } });
    expect(analysis.operation).toMatchObject({ eligibleTasks: 1, eligibleMessages: 2, skipped: { held: 1 } });
  });

  it("a hold committed after the task's probe keeps it out: the batch re-reads it in its writer transaction", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const before = bodies("a");
    let held = false;
    const result = await pass({
      beforeBatch: () => {
        // The rows were read and reduced; the hold lands before the writer transaction opens.
        if (!held) hold("a");
        held = true;
      },
    });
    expect(held).toBe(true);
    expect(result.operation).toMatchObject({ changedMessages: 0, eligibleTasks: 0, skipped: { held: 1 } });
    expect(bodies("a")).toEqual(before);
  });
});
