// Big rows are removed where the data is: SQL's JSON functions cut the
// payload and only the small skeleton reaches JavaScript; the batch writes
// the small result under a row-version guard.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { runCleanupPass } from "./pass";
import type { PreparedRow } from "./batch";
import type { CompactionStore } from "../store";
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
    const store = storeOf(t.sqlite);
    let bodiesRead = 0;
    const counting: CompactionStore = {
      ...store,
      readToolRowBodies: (options) => {
        bodiesRead += options.rows.length;
        return store.readToolRowBodies(options);
      },
    };
    const result = await runCleanupPass({ store: counting, clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, beforeBatch: (rows) => void seen.push(...rows) });
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation?.skipped.statement_deadline).toBeUndefined();
    expect(countMarkedRows(t.sqlite)).toBe(1);
    expect(seen).toHaveLength(1);
    expect(bodiesRead).toBe(0);
    expect(seen[0]).toMatchObject({ updatedAt: expect.any(String) });
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

  // Rows only the JS reducer can judge (here: stored pretty-printed) are
  // guarded by the same row version: their text is not held until the batch.
  const pretty = (id: string) => {
    const text = JSON.stringify(JSON.parse((t.sqlite.prepare("select metadata from messages where id = ?").get(id) as { metadata: string }).metadata), null, 2);
    t.sqlite.prepare("update messages set metadata = ? where id = ?").run(text, id);
    return text;
  };

  it("[TPR-TX-02] a row the reducer judged: a same-length rewrite with updated_at bumped, or a longer one without, keeps its text (conflict)", async () => {
    seedOldTask(t.sqlite, "a", 3);
    const texts = ["a-m0", "a-m1", "a-m2"].map(pretty);
    const sameLength = texts[0]!.replace("npm test", "npm TEST");
    const longer = texts[1]!.replace("npm test", "npm test --watch");
    const store = storeOf(t.sqlite);
    let bodiesRead = 0;
    const counting: CompactionStore = {
      ...store,
      readToolRowBodies: (options) => {
        bodiesRead += options.rows.length;
        return store.readToolRowBodies(options);
      },
    };
    const result = await runCleanupPass({
      store: counting,
      clock: manualClock(NOW_MS),
      operationId: "run-1",
      wait: async () => {},
      beforeBatch: (rows) => {
        expect(rows).toHaveLength(3);
        t.sqlite.prepare("update messages set metadata = ?, updated_at = '2025-01-01T00:00:01Z' where id = 'a-m0'").run(sameLength);
        t.sqlite.prepare("update messages set metadata = ? where id = 'a-m1'").run(longer);
      },
    });
    expect(bodiesRead).toBe(3);
    expect(result.operation).toMatchObject({ changedMessages: 1, skipped: { conflict: 2 } });
    const stored = (id: string) => (t.sqlite.prepare("select metadata from messages where id = ?").get(id) as { metadata: string }).metadata;
    expect(stored("a-m0")).toBe(sameLength);
    expect(stored("a-m1")).toBe(longer);
    expect(JSON.parse(stored("a-m2")).payload_retention).toMatchObject({ removed_fields: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"] });
  });
});
