// Big rows are removed where the data is: SQL's JSON functions cut the
// payload and only the small skeleton reaches JavaScript; the batch writes
// the small result under a row-version guard.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { runCleanupPass } from "./pass";
import type { PreparedRow } from "./batch";
import { WHOLE_TEXT_GUARD_MAX_BYTES } from "./prepare-page";
import type { CompactionStore } from "../store";
import { NOW_MS, armPolicy, countMarkedRows, seedOldTask, shellMetadata, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-big-row-");
  await armPolicy(t.sqlite);
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
    const { store, bodiesRead } = countingBodies(storeOf(t.sqlite));
    const result = await runCleanupPass({ store, clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, beforeBatch: (rows) => void seen.push(...rows) });
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation?.skipped.statement_deadline).toBeUndefined();
    expect(countMarkedRows(t.sqlite)).toBe(1);
    expect(seen).toHaveLength(1);
    expect(bodiesRead()).toBe(0);
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

  // Rows only the JS reducer can judge (here: stored pretty-printed) keep
  // the whole-text guard, except huge ones, which are guarded by version.
  const pretty = (id: string) => {
    const text = JSON.stringify(JSON.parse((t.sqlite.prepare("select metadata from messages where id = ?").get(id) as { metadata: string }).metadata), null, 2);
    t.sqlite.prepare("update messages set metadata = ? where id = ?").run(text, id);
    return text;
  };
  const stored = (id: string) => (t.sqlite.prepare("select metadata from messages where id = ?").get(id) as { metadata: string }).metadata;

  it("[TPR-TX-02] a row the reducer judged keeps any foreground rewrite, even one of the same length that leaves updated_at alone (conflict)", async () => {
    seedOldTask(t.sqlite, "a", 4);
    const texts = ["a-m0", "a-m1", "a-m2", "a-m3"].map(pretty);
    const bumped = texts[0]!.replace("npm test", "npm TEST");
    const longer = texts[1]!.replace("npm test", "npm test --watch");
    const sameVersion = texts[2]!.replace("npm test", "npm TEST");
    const { store, bodiesRead } = countingBodies(storeOf(t.sqlite));
    const seen: PreparedRow[] = [];
    const result = await runCleanupPass({
      store,
      clock: manualClock(NOW_MS),
      operationId: "run-1",
      wait: async () => {},
      beforeBatch: (rows) => {
        seen.push(...rows);
        t.sqlite.prepare("update messages set metadata = ?, updated_at = '2025-01-01T00:00:01Z' where id = 'a-m0'").run(bumped);
        t.sqlite.prepare("update messages set metadata = ? where id = 'a-m1'").run(longer);
        t.sqlite.prepare("update messages set metadata = ? where id = 'a-m2'").run(sameVersion);
      },
    });
    expect(bodiesRead()).toBe(4);
    expect(seen.map((row) => row.observed)).toEqual(texts);
    expect(result.operation).toMatchObject({ changedMessages: 1, skipped: { conflict: 3 } });
    expect([stored("a-m0"), stored("a-m1"), stored("a-m2")]).toEqual([bumped, longer, sameVersion]);
    expect(JSON.parse(stored("a-m3")).payload_retention).toMatchObject({ removed_fields: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"] });
  });

  it("a huge row the reducer judged is not held whole: it is guarded by its version", async () => {
    seedOldTask(t.sqlite, "a", 1, "z".repeat(WHOLE_TEXT_GUARD_MAX_BYTES));
    pretty("a-m0");
    const { store, bodiesRead } = countingBodies(storeOf(t.sqlite));
    const seen: PreparedRow[] = [];
    const result = await runCleanupPass({ store, clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, beforeBatch: (rows) => void seen.push(...rows) });
    expect(bodiesRead()).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.bytes).toBeGreaterThan(WHOLE_TEXT_GUARD_MAX_BYTES);
    expect(seen[0]).toMatchObject({ observed: null, updatedAt: expect.any(String) });
    expect(result.operation).toMatchObject({ changedMessages: 1 });
    expect(JSON.parse(stored("a-m0")).payload_retention).toBeDefined();
  });
});

/** The store, counting the rows whose bodies were read for the JS reducer. */
function countingBodies(inner: CompactionStore): { store: CompactionStore; bodiesRead: () => number } {
  let read = 0;
  const store: CompactionStore = {
    ...inner,
    readToolRowBodies: (options) => {
      read += options.rows.length;
      return inner.readToolRowBodies(options);
    },
  };
  return { store, bodiesRead: () => read };
}
