import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { formatUtc } from "@/lib/time/rfc3339";
import { fingerprintAge, runAnalysis } from "./analysis";
import { runCleanupPass } from "../cleanup/pass";
import { reduceToolPayload } from "../reducer/reducer";
import { CUTOFF_MS, NOW_MS, RECENT, armPolicy, insertMessage, seedOldTask, steppingClock, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-analysis-");
});
afterEach(() => t.close());

const WEEK = { value: 1, unit: "weeks" } as const;

function seedMixed() {
  seedOldTask(t.sqlite, "a", 3, "out".repeat(500));
  insertMessage(t.sqlite, { id: "a-bad", sessionId: "a-s1", turnId: "a-u1", metadata: "{not json" });
  insertMessage(t.sqlite, { id: "a-chat", sessionId: "a-s1", turnId: "a-u1", type: "message", metadata: "{}" });
  seedOldTask(t.sqlite, "b", 2);
  t.sqlite.prepare("update tasks set updated_at = ?, updated_at_ms = ? where id = 'b'").run(RECENT, Date.parse(RECENT));
  seedOldTask(t.sqlite, "c", 2);
  t.sqlite.exec("insert into runs (id, session_id, state) values ('r1', 'c-s1', 'RUNNING')");
}

const analyse = (extra: Partial<Parameters<typeof runAnalysis>[0]> = {}) =>
  runAnalysis({ store: storeOf(t.sqlite), operationId: "an-1", age: WEEK, clock: manualClock(NOW_MS), pause: async () => {}, ...extra });

describe("analysis", () => {
  it("[TPR-AN-01][TPR-AN-02] records fingerprint, cutoff, window, counts, skip reasons, net bytes and kinds as an estimate", async () => {
    seedMixed();
    const result = await analyse();
    const expectedBytes = (t.sqlite.prepare("select type, metadata from messages where session_id = 'a-s1' and type = 'tool_execute'").all() as Array<{ type: string; metadata: string }>)
      .map((row) => reduceToolPayload({ type: row.type, metadata: row.metadata, removedAt: formatUtc(NOW_MS) }))
      .reduce((sum, r) => sum + (r.outcome === "changed" ? r.removedBytes : 0), 0);
    expect(result.estimate).toBe(true);
    expect(result.partialReason).toBeNull();
    expect(result.scanWindow).toEqual({ startedAt: formatUtc(NOW_MS), finishedAt: formatUtc(NOW_MS) });
    expect(result.operation).toMatchObject({
      id: "an-1",
      kind: "analysis",
      state: "succeeded",
      fingerprint: fingerprintAge(WEEK),
      cutoff: formatUtc(CUTOFF_MS),
      startedAt: formatUtc(NOW_MS),
      finishedAt: formatUtc(NOW_MS),
      scannedRows: 4,
      eligibleTasks: 1,
      eligibleMessages: 3,
      changedMessages: 0,
      payloadBytes: expectedBytes,
      skipped: { malformed: 1, recent_activity: 1, live_run: 1 },
      progress: { processedTasks: 3, totalTasks: 3, processedMessages: 4 },
      byKind: { shell_exec: { messages: 3, payloadBytes: expectedBytes } },
    });
    expect(expectedBytes).toBeGreaterThan(3000);
  });

  it("[TPR-AN-01] analysis is read-only", async () => {
    seedMixed();
    const before = t.sqlite.prepare("select * from messages order by rowid").all();
    const changes = () => (t.sqlite.prepare("select total_changes() as n").get() as { n: number }).n;
    const n = changes();
    await analyse();
    expect(changes()).toBe(n);
    expect(t.sqlite.prepare("select * from messages order by rowid").all()).toEqual(before);
  });

  it("[TPR-AN-03] a cancelled analysis is partial with progress and no total", async () => {
    seedMixed();
    let calls = 0;
    const progress: number[] = [];
    const result = await analyse({ shouldStop: () => ++calls > 2, onProgress: (op) => progress.push(op.scannedRows), chunkMs: 0 });
    expect(result.partialReason).toBe("cancelled");
    expect(result.operation.state).toBe("partial");
    expect(result.operation.progress).toEqual({ processedTasks: 1, totalTasks: null, processedMessages: 4 });
    expect(progress.length).toBeGreaterThan(0);
  });

  it("[TPR-AN-03] over its work budget the analysis stops partial", async () => {
    seedMixed();
    const result = await analyse({ clock: steppingClock(NOW_MS, 1), workBudgetMs: 5 });
    expect(result.partialReason).toBe("work_budget");
    expect(result.operation.state).toBe("partial");
    expect(result.operation.progress?.totalTasks).toBeNull();
  });

  it("[TPR-ELIG-16] an eligibility budget skip makes the analysis partial", async () => {
    seedMixed();
    const result = await analyse({ clock: steppingClock(NOW_MS, 40), workBudgetMs: 1e9 });
    // Task a needs every probe and runs out of budget; b and c are rejected sooner.
    expect(result.operation.skipped.eligibility_budget).toBe(1);
    expect(result.operation.eligibleTasks).toBe(0);
    expect(result.operation.state).toBe("partial");
    expect(result.operation.payloadBytes).toBe(0);
  });

  it("[TPR-RED-16] analysis predicts exactly what cleanup commits (same reducer, same serialization)", async () => {
    seedMixed();
    seedOldTask(t.sqlite, "d", 120, "é".repeat(700));
    const predicted = await analyse();
    await armPolicy(t.sqlite, WEEK);
    const pass = await runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS + 5_000), operationId: "run-1", wait: async () => {} });
    expect(pass.state).toBe("succeeded");
    expect(pass.operation?.changedMessages).toBe(predicted.operation.eligibleMessages);
    expect(pass.operation?.payloadBytes).toBe(predicted.operation.payloadBytes);
    expect(pass.operation?.byKind).toEqual(predicted.operation.byKind);
  });
});
