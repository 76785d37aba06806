// Batches sized by work span sessions and tasks: one writer transaction each,
// all-or-nothing, a cursor that is always a prefix of work fully done, and a
// task that turns ineligible falls out of its batch without touching others.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { openDatabase } from "@/server/db/client";
import type { Sqlite } from "@/server/db/client";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { runCleanupPass, type CleanupPassOptions } from "./pass";
import { NOW_MS, armPolicy, countMarkedRows, insertMessage, insertSession, insertTurn, seedOldTask, shellMetadata, storeOf, readRecordSync } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-span-");
  await armPolicy(t.sqlite);
});
afterEach(() => t.close());

function run(sqlite: Sqlite, extra: Partial<CleanupPassOptions> = {}) {
  return runCleanupPass({ store: storeOf(sqlite), clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, ...extra });
}

/** A task with a second session, so batches cross sessions as well as tasks. */
function seedTwoSessionTask(sqlite: Sqlite, taskId: string, perSession: number) {
  seedOldTask(sqlite, taskId, perSession);
  insertSession(sqlite, { id: `${taskId}-s2`, taskId });
  insertTurn(sqlite, { id: `${taskId}-u2`, sessionId: `${taskId}-s2` });
  for (let i = 0; i < perSession; i += 1) {
    insertMessage(sqlite, { id: `${taskId}-n${i}`, sessionId: `${taskId}-s2`, turnId: `${taskId}-u2`, metadata: shellMetadata(`${taskId}-d${i}`, "y".repeat(2000)) });
  }
}

const markedIn = (sqlite: Sqlite, prefix: string) =>
  (sqlite.prepare("select count(*) as n from messages where id like ? and json_extract(metadata, '$.payload_retention') is not null").get(`${prefix}-%`) as { n: number }).n;

function storedCursor(sqlite: Sqlite) {
  const read = readRecordSync(sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record.runtime.cursor;
}

describe("batches sized by work", () => {
  it("[TPR-BAT-05][TPR-TX-03] one batch spanning sessions and tasks commits all-or-nothing; a rolled-back batch retries from the committed cursor", async () => {
    seedTwoSessionTask(t.sqlite, "a", 10);
    seedTwoSessionTask(t.sqlite, "b", 10);
    seedOldTask(t.sqlite, "c", 5);
    // The last row of the batch fails once: everything before it in the same
    // transaction (other tasks, other sessions) must roll back with it.
    let failOnce = true;
    t.sqlite.function("fail_once", () => {
      if (!failOnce) return 0;
      failOnce = false;
      throw new Error("disk hiccup");
    });
    t.sqlite.exec("create temp trigger fail_c after update of metadata on messages when new.id = 'c-m4' begin select fail_once(); end");
    const seenBefore: Array<{ marked: number; cursorTask: string | null }> = [];
    const batches: number[] = [];
    const result = await run(t.sqlite, {
      beforeBatch: () => seenBefore.push({ marked: countMarkedRows(t.sqlite), cursorTask: storedCursor(t.sqlite)?.afterTaskId ?? null }),
      onBatch: ({ rows }) => batches.push(rows),
    });
    // Two attempts of the same 45-row batch: the retry started from nothing written.
    expect(seenBefore).toEqual([{ marked: 0, cursorTask: null }, { marked: 0, cursorTask: null }]);
    expect(batches).toEqual([45]);
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    // Counts after the rollback and the retry are those of one clean walk.
    expect(result.operation).toMatchObject({ scannedRows: 45, eligibleTasks: 3, eligibleMessages: 45, changedMessages: 45, skipped: {} });
    expect(result.operation?.progress).toMatchObject({ processedTasks: 3, processedMessages: 45 });
    expect(countMarkedRows(t.sqlite)).toBe(45);
  });

  it("[TPR-TX-01][TPR-OBS-01] a task turning ineligible mid-pass falls out of its batch; the other tasks in it commit", async () => {
    seedOldTask(t.sqlite, "a", 50);
    seedOldTask(t.sqlite, "b", 200);
    seedOldTask(t.sqlite, "c", 10);
    let calls = 0;
    const batches: Array<{ rows: number; changed: string[] }> = [];
    const result = await run(t.sqlite, {
      beforeBatch: (rows) => {
        // The first batch holds a's 50 rows and b's first 50: b gets a queued run.
        if (++calls === 1) {
          expect(rows.map((row) => row.id.slice(0, 2))).toEqual([...Array(50).fill("a-"), ...Array(50).fill("b-")]);
          t.sqlite.exec("insert into runs (id, session_id, state) values ('r', 'b-s1', 'QUEUED')");
        }
      },
      onBatch: ({ rows, changedIds }) => batches.push({ rows, changed: changedIds }),
    });
    expect(markedIn(t.sqlite, "a")).toBe(50);
    expect(markedIn(t.sqlite, "b")).toBe(0);
    expect(markedIn(t.sqlite, "c")).toBe(10);
    // b's remaining rows are never read again: one more batch, for c only.
    expect(batches.map((b) => b.rows)).toEqual([50, 10]);
    expect(batches[1]!.changed.every((id) => id.startsWith("c-"))).toBe(true);
    expect(result.operation).toMatchObject({ state: "succeeded", eligibleTasks: 2, changedMessages: 60, skipped: { live_run: 1 } });
  });

  it("[TPR-BAT-03][TPR-TX-03] a crash with a batch's transaction abandoned resumes with the counts of an uninterrupted pass", async () => {
    for (const id of ["a", "b", "c", "d", "e", "f"]) seedTwoSessionTask(t.sqlite, id, 40);
    seedOldTask(t.sqlite, "g", 3);
    // A task with recent activity is skipped by both passes.
    const recent = NOW_MS - 3_600_000;
    t.sqlite.prepare("update tasks set updated_at = ?, updated_at_ms = ? where id = 'g'").run(new Date(recent).toISOString(), recent);
    // The same database, copied before anything ran, for the uninterrupted pass.
    const copy = path.join(t.dir, "uninterrupted.db");
    t.sqlite.exec(`vacuum into '${copy}'`);

    let batches = 0;
    await expect(
      run(t.sqlite, {
        beforeBatch: (rows) => {
          if (++batches < 3) return;
          // The process dies inside the third batch's writer transaction.
          t.sqlite.exec("begin immediate");
          t.sqlite.prepare("update messages set metadata = json_set(metadata, '$.half', 1) where id = ?").run(rows[0]!.id);
          throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    expect(t.sqlite.inTransaction).toBe(true);
    t.sqlite.close();

    const reopened = openDatabase({ file: t.file });
    const halfWritten = reopened.sqlite.prepare("select count(*) as n from messages where json_extract(metadata, '$.half') is not null").get() as { n: number };
    expect(halfWritten.n).toBe(0);
    const committed = storedCursor(reopened.sqlite);
    expect(committed).not.toBeNull();
    expect(countMarkedRows(reopened.sqlite)).toBeGreaterThan(0);
    const resumed = await run(reopened.sqlite, { clock: manualClock(NOW_MS + 1000) });

    const clean = openDatabase({ file: copy });
    const whole = await run(clean.sqlite);
    const counts = (op: typeof whole.operation) => ({
      scannedRows: op?.scannedRows,
      eligibleTasks: op?.eligibleTasks,
      eligibleMessages: op?.eligibleMessages,
      changedMessages: op?.changedMessages,
      payloadBytes: op?.payloadBytes,
      skipped: op?.skipped,
      byKind: op?.byKind,
      progress: op?.progress,
    });
    expect(whole.operation).toMatchObject({ state: "succeeded", changedMessages: 480, skipped: { recent_activity: 1 } });
    expect(resumed.state).toBe("succeeded");
    expect(counts(resumed.operation)).toEqual(counts(whole.operation));
    expect(countMarkedRows(reopened.sqlite)).toBe(480);
    reopened.sqlite.close();
    clean.sqlite.close();
    fs.rmSync(copy, { force: true });
  });
});
