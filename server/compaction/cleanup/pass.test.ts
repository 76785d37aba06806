import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { openDatabase } from "@/server/db/client";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { updateCompactionRecord } from "../policy/record";
import { runCleanupPass, yieldAfter, type CleanupPassOptions } from "./pass";
import { NOW_MS, armPolicy, countMarkedRows, insertMessage, seedOldTask, shellMetadata, steppingClock, storeOf, readRecordSync } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-pass-");
  await armPolicy(t.sqlite);
});
afterEach(() => t.close());

const MIB = 1024 * 1024;

function run(extra: Partial<CleanupPassOptions> = {}) {
  return runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, ...extra });
}

function record(sqlite = t.sqlite) {
  const read = readRecordSync(sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}

const stamps = () => t.sqlite.prepare("select rowid, created_at, created_at_ms, updated_at, updated_at_ms from messages order by rowid").all();

describe("cleanup pass", () => {
  it("[TPR-ELIG-17][TPR-OBS-01] removes payloads, keeps activity timestamps and records the run", async () => {
    seedOldTask(t.sqlite, "a", 5);
    const before = stamps();
    const result = await run();
    expect(result).toMatchObject({ state: "succeeded", reason: "complete", continuation: false });
    expect(countMarkedRows(t.sqlite)).toBe(5);
    expect(stamps()).toEqual(before);
    const stored = record();
    expect(stored.runtime.cursor).toBeNull();
    expect(stored.runtime.activeOperation).toBeNull();
    expect(stored.runtime.latestRun).toMatchObject({ id: "run-1", kind: "cleanup", state: "succeeded", changedMessages: 5, eligibleTasks: 1 });
  });

  it("[TPR-TX-08] changed message ids are handed out only after their batch committed", async () => {
    seedOldTask(t.sqlite, "a", 150);
    const other = new Database(t.file, { readonly: true });
    const seen: string[] = [];
    await run({
      onBatch: ({ changedIds }) => {
        for (const id of changedIds) {
          const row = other.prepare("select json_extract(metadata, '$.payload_retention.version') as v from messages where id = ?").get(id) as { v: number };
          expect(row.v).toBe(1);
        }
        seen.push(...changedIds);
      },
    });
    other.close();
    expect(seen).toHaveLength(150);
    expect(new Set(seen).size).toBe(150);
  });

  it("[TPR-BAT-05][TPR-BAT-09] the first batch holds 100 rows, later ones span tasks up to 8 MiB; a larger row goes alone; over 32 MiB stays intact", async () => {
    seedOldTask(t.sqlite, "a", 230);
    seedOldTask(t.sqlite, "b", 0);
    for (const [i, size] of [3, 3, 3, 12, 33].entries()) {
      insertMessage(t.sqlite, { id: `big${i}`, sessionId: "b-s1", turnId: "b-u1", metadata: shellMetadata(`c${i}`, "z".repeat(size * MIB)) });
    }
    const batches: Array<{ rows: number; bytes: number }> = [];
    const result = await run({ onBatch: ({ rows, bytes }) => batches.push({ rows, bytes }) });
    // 100 rows, then a's last 130 with b's first two 3 MiB rows (the limit grows
    // while batches are quick), then the third 3 MiB row and the 12 MiB one alone.
    expect(batches.map((b) => b.rows)).toEqual([100, 132, 1, 1]);
    for (const b of batches) expect(b.rows === 1 || b.bytes <= 8 * MIB).toBe(true);
    expect(Math.max(...batches.map((b) => b.bytes))).toBeLessThanOrEqual(32 * MIB);
    expect(result.operation?.skipped.oversize).toBe(1);
    expect(countMarkedRows(t.sqlite)).toBe(234);
  });

  it("[TPR-BAT-07] yields between batches through the injected wait, in proportion to each batch's time, at most 100 ms", async () => {
    seedOldTask(t.sqlite, "a", 250);
    const clock = manualClock(NOW_MS);
    // Each row write takes 0.5 ms of the injected clock: batches of 100, 100
    // and 50 rows hold the writer 50, 50 and 25 ms.
    t.sqlite.function("half_ms", () => {
      clock.advance(0.5);
      return 0;
    });
    t.sqlite.exec("create temp trigger slow_write after update of metadata on messages begin select half_ms(); end");
    const waits: number[] = [];
    await run({ clock, wait: async (ms) => void waits.push(ms) });
    expect(waits).toEqual([50, 50, 25]);
    t.sqlite.exec("drop trigger slow_write");
    seedOldTask(t.sqlite, "b", 10);
    const quick: number[] = [];
    await run({ clock, operationId: "run-2", wait: async (ms) => void quick.push(ms) });
    // A batch that took no measurable time still yields a turn; a slow one at most 100 ms.
    expect(quick).toEqual([1]);
    expect(yieldAfter(300, 100)).toBe(100);
  });

  it("[TPR-BAT-07][TPR-SCH-08] a statement deadline overrun rolls the whole batch back; five failures end the pass", async () => {
    seedOldTask(t.sqlite, "a", 20);
    const before = t.sqlite.prepare("select metadata from messages order by rowid").all();
    // Every clock reading advances 1 ms: the eligibility probes fit their
    // 200 ms budget, but the batch deadline of 1 ms (counted from the first
    // write) is passed after rows were already updated inside the transaction,
    // even when the retries halve the batch down to a single row.
    const result = await run({ clock: steppingClock(NOW_MS, 1), deadlineMs: 1 });
    expect(result).toMatchObject({ state: "failed", reason: "batch_failures" });
    expect(t.sqlite.prepare("select metadata from messages order by rowid").all()).toEqual(before);
    expect(record().runtime.latestRun).toMatchObject({ state: "failed", changedMessages: 0, errorCode: "batch_failures" });
  });

  it("[TPR-BAT-07] a row that overruns the deadline even alone stays intact and the pass moves on", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const clock = manualClock(NOW_MS);
    // The clock jumps 500 ms only while the row a-m1 is being rewritten.
    t.sqlite.function("bump_clock", () => {
      clock.advance(500);
      return 0;
    });
    t.sqlite.exec("create temp trigger slow_row after update of metadata on messages when new.id = 'a-m1' begin select bump_clock(); end");
    const slow = t.sqlite.prepare("select metadata from messages where id = 'a-m1'").get();
    const result = await run({ clock });
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation).toMatchObject({ changedMessages: 2, skipped: { statement_deadline: 1 } });
    expect(t.sqlite.prepare("select metadata from messages where id = 'a-m1'").get()).toEqual(slow);
    expect(countMarkedRows(t.sqlite)).toBe(2);
  });

  it("[TPR-TX-01] each batch re-checks the policy inside its writer transaction", async () => {
    seedOldTask(t.sqlite, "a", 150);
    let batches = 0;
    const result = await run({
      beforeBatch: async () => {
        batches += 1;
        // Disabled by an administrator after the rows were read.
        if (batches === 2) await updateCompactionRecord(storeOf(t.sqlite), { nowMs: NOW_MS, mutate: (r) => ({ ...r, policy: { ...r.policy, enabled: false } }) });
      },
    });
    expect(result).toMatchObject({ state: "partial", reason: "disabled" });
    expect(countMarkedRows(t.sqlite)).toBe(100);
    expect(record().runtime.latestRun).toMatchObject({ state: "partial", changedMessages: 100 });
  });

  it("[TPR-TX-01] a task that became active since it was read is skipped by the in-transaction gates", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const result = await run({ beforeBatch: () => void t.sqlite.exec("insert into runs (id, session_id, state) values ('r', 'a-s1', 'QUEUED')") });
    expect(result.state).toBe("succeeded");
    expect(countMarkedRows(t.sqlite)).toBe(0);
    expect(result.operation?.skipped.live_run).toBe(1);
  });

  it("[TPR-OBS-01] a task rejected in the writer transaction is counted skipped, not eligible", async () => {
    seedOldTask(t.sqlite, "a", 3);
    seedOldTask(t.sqlite, "b", 2);
    const result = await run({
      beforeBatch: (rows) => {
        if (rows[0]?.id.startsWith("a-")) t.sqlite.exec("insert into runs (id, session_id, state) values ('r', 'a-s1', 'QUEUED')");
      },
    });
    expect(result.operation).toMatchObject({ eligibleTasks: 1, eligibleMessages: 2, changedMessages: 2, skipped: { live_run: 1 } });
  });

  it("[TPR-TX-02] a foreground commit before the batch keeps its payload (conflict)", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const fresh = shellMetadata("a-c1", "foreground output");
    const result = await run({ beforeBatch: () => void t.sqlite.prepare("update messages set metadata = ? where id = 'a-m1'").run(fresh) });
    expect(result.operation).toMatchObject({ changedMessages: 2, skipped: { conflict: 1 } });
    const kept = t.sqlite.prepare("select metadata from messages where id = 'a-m1'").get() as { metadata: string };
    expect(kept.metadata).toBe(fresh);
  });

  it("[TPR-TX-03] the cursor and committed counts are stored with each batch's changes", async () => {
    seedOldTask(t.sqlite, "a", 250);
    const other = new Database(t.file, { readonly: true });
    await run({
      onBatch: () => {
        const stored = record(other);
        const marked = countMarkedRows(other);
        expect(stored.runtime.activeOperation?.changedMessages).toBe(marked);
        const maxMarked = (other.prepare("select max(rowid) as r from messages where json_extract(metadata, '$.payload_retention') is not null").get() as { r: number }).r;
        const cursor = stored.runtime.cursor!;
        expect(cursor.afterMessageRowid === null || cursor.afterMessageRowid === maxMarked).toBe(true);
      },
    });
    other.close();
  });

  it("[TPR-BAT-03][TPR-TX-03] resumes after a crash without double counting", async () => {
    seedOldTask(t.sqlite, "a", 120);
    seedOldTask(t.sqlite, "b", 130);
    let batches = 0;
    await expect(
      run({
        onBatch: () => {
          if (++batches === 2) throw new Error("simulated crash");
        },
      }),
    ).rejects.toThrow("simulated crash");
    t.sqlite.close();
    const reopened = openDatabase({ file: t.file });
    const result = await runCleanupPass({ store: storeOf(reopened.sqlite), clock: manualClock(NOW_MS + 1000), operationId: "run-1", wait: async () => {} });
    expect(result.state).toBe("succeeded");
    const marked = countMarkedRows(reopened.sqlite);
    expect(marked).toBe(250);
    expect(result.operation).toMatchObject({ changedMessages: marked, eligibleTasks: 2, scannedRows: 250 });
    reopened.sqlite.close();
  });

  it("[TPR-BAT-08] stops at its work budget with the cursor saved and continues later", async () => {
    seedOldTask(t.sqlite, "a", 250);
    const first = await run({ clock: steppingClock(NOW_MS, 1), workBudgetMs: 100 });
    expect(first).toMatchObject({ state: "running", reason: "work_budget", continuation: true });
    expect(first.continueAfterMs).toBeGreaterThanOrEqual(60_000);
    const saved = record().runtime;
    expect(saved.cursor).not.toBeNull();
    const partialCount = countMarkedRows(t.sqlite);
    expect(partialCount).toBeGreaterThan(0);
    expect(partialCount).toBeLessThan(250);
    expect(saved.activeOperation?.changedMessages).toBe(partialCount);
    const second = await run();
    expect(second.state).toBe("succeeded");
    expect(second.operation?.changedMessages).toBe(250);
    expect(second.operation?.cutoff).toBe(saved.cursor!.cutoff);
  });

  it("[TPR-BAT-03] a worker that has not yet seen another take its operation over cannot commit over it: its next batch ends it, and the counts are an uninterrupted run's", async () => {
    seedOldTask(t.sqlite, "a", 400);
    let batches = 0;
    const other: { result?: Awaited<ReturnType<typeof run>> } = {};
    // Before the stale worker's second batch, another one resumes the same operation and commits a slice of its own.
    const stale = await run({
      beforeBatch: async () => {
        if (++batches !== 2) return;
        let looks = 0;
        other.result = await run({ shouldPause: () => ++looks > 3 });
      },
    });
    expect(other.result).toMatchObject({ state: "running", reason: "work_budget" });
    expect(stale).toMatchObject({ state: "partial", reason: "operation_replaced" });
    const resumed = await run();
    expect(resumed.state).toBe("succeeded");
    expect(countMarkedRows(t.sqlite)).toBe(400);
    expect(resumed.operation?.changedMessages).toBe(400);
  });

  it("[TPR-BAT-02] a schema change ends the pass partial with committed counts; the next pass starts fresh", async () => {
    seedOldTask(t.sqlite, "a", 250);
    let batches = 0;
    const result = await run({
      beforeBatch: () => {
        if (++batches === 2) t.sqlite.exec("create index tmp_schema_bump on tasks (title)");
      },
    });
    expect(result).toMatchObject({ state: "partial", reason: "schema_changed" });
    expect(result.operation?.changedMessages).toBe(100);
    expect(countMarkedRows(t.sqlite)).toBe(100);
    expect(record().runtime.cursor).toBeNull();
    const next = await runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId: "run-2", wait: async () => {} });
    expect(next.state).toBe("succeeded");
    expect(next.operation).toMatchObject({ changedMessages: 150, skipped: { already_removed: 100 } });
  });

  it("[TPR-BAT-02] a schema change between a crash and the restart ends the stored pass partial", async () => {
    seedOldTask(t.sqlite, "a", 250);
    await expect(run({ onBatch: () => { throw new Error("crash"); } })).rejects.toThrow("crash");
    t.sqlite.exec("vacuum");
    const result = await run();
    expect(result).toMatchObject({ state: "partial", reason: "schema_changed" });
    expect(result.operation?.changedMessages).toBe(100);
  });

  it("[TPR-ELIG-16] an eligibility budget overrun retains the task and makes the pass partial", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const result = await run({ clock: steppingClock(NOW_MS, 40), deadlineMs: 1e9, workBudgetMs: 1e9 });
    expect(result.state).toBe("partial");
    expect(result.operation?.skipped.eligibility_budget).toBe(1);
    expect(countMarkedRows(t.sqlite)).toBe(0);
  });

  it("[TPR-PREP-02] a pass does not start without an approved revision", async () => {
    seedOldTask(t.sqlite, "a", 3);
    await updateCompactionRecord(storeOf(t.sqlite), { nowMs: NOW_MS, mutate: (r) => ({ ...r, runtime: { ...r.runtime, approvedRevision: null } }) });
    const result = await run();
    expect(result).toMatchObject({ state: "failed", reason: "not_approved" });
    expect(countMarkedRows(t.sqlite)).toBe(0);
  });

  it("[TPR-SCH-07] cancellation stops at the next batch boundary", async () => {
    seedOldTask(t.sqlite, "a", 250);
    let batches = 0;
    const result = await run({ onBatch: () => void (batches += 1), shouldStop: () => batches >= 1 });
    expect(result.state).toBe("cancelled");
    expect(countMarkedRows(t.sqlite)).toBe(100);
    expect(record().runtime.latestRun).toMatchObject({ state: "cancelled", changedMessages: 100 });
  });
});
