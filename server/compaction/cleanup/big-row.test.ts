// Big rows are removed where the data is: SQL's JSON functions cut the
// payload and only the small skeleton reaches JavaScript; the batch writes
// the small result under a row-version guard.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { runCleanupPass } from "./pass";
import type { PreparedRow } from "./batch";
import { NOW_MS, armPolicy, countMarkedRows, seedOldTask, shellMetadata, storeOf } from "../test-support";

let t: TestDb;
beforeEach(() => {
  t = createTestDb("ws-big-row-");
  armPolicy(t.sqlite);
});
afterEach(() => t.close());

const MIB = 1024 * 1024;

describe("SQL-side removal in a pass", () => {
  it("[TPR-BAT-05][TPR-RED-14] a 30 MB row is compacted by SQL, its payload never read into JavaScript, removed_bytes exact", async () => {
    // 30 MB stored (each newline is stored escaped: 16 bytes a line).
    seedOldTask(t.sqlite, "a", 1, "line of output\n".repeat(30_000_000 / 16));
    const before = (t.sqlite.prepare("select octet_length(metadata) as n from messages").get() as { n: number }).n;
    expect(before).toBeGreaterThan(30_000_000);
    expect(before).toBeLessThan(32 * MIB);
    const seen: PreparedRow[] = [];
    const result = await runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, beforeBatch: (rows) => void seen.push(...rows) });
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation?.skipped.statement_deadline).toBeUndefined();
    expect(countMarkedRows(t.sqlite)).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ observed: null, updatedAt: expect.any(String) });
    const after = t.sqlite.prepare("select octet_length(metadata) as n, json_extract(metadata, '$.payload_retention.removed_bytes') as removed from messages").get() as { n: number; removed: number };
    expect(after.removed).toBe(before - after.n);
    expect(after.n).toBeLessThan(1024);
  });

  it("[TPR-TX-02] a same-length foreground rewrite (updated_at bumped) after the rows were judged keeps its text (conflict)", async () => {
    seedOldTask(t.sqlite, "a", 2);
    const fresh = shellMetadata("a-c0", "y".repeat(2000));
    const result = await runCleanupPass({
      store: storeOf(t.sqlite),
      clock: manualClock(NOW_MS),
      operationId: "run-1",
      wait: async () => {},
      beforeBatch: () => void t.sqlite.prepare("update messages set metadata = ?, updated_at = '2025-01-01T00:00:01Z' where id = 'a-m0'").run(fresh),
    });
    expect(result.operation).toMatchObject({ changedMessages: 1, skipped: { conflict: 1 } });
    expect((t.sqlite.prepare("select metadata from messages where id = 'a-m0'").get() as { metadata: string }).metadata).toBe(fresh);
  });
});
