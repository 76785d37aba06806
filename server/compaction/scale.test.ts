import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { openDatabase, type DbHandle } from "@/server/db/client";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { GEN_NOW_MS, generateWorkspace } from "@/scripts/gen-large-workspace";
import { PROBE_SQL } from "./store/sqlite-eligibility";
import { runCleanupPass } from "./cleanup/pass";
import { BATCH_LIMITS } from "./cleanup/open-batch";
import { armPolicy, countMarkedRows, storeOf } from "./test-support";

const MIB = 1024 * 1024;

let dir: TestDb;
let handle: DbHandle;
beforeEach(async () => {
  // createTestDb only provides the temp directory; the generator writes its own file.
  dir = createTestDb("ws-scale-");
  const file = path.join(dir.dir, "generated.db");
  generateWorkspace({ file, messages: 4_000, seed: 7, hugeRows: 1 });
  handle = openDatabase({ file });
  await armPolicy(handle.sqlite, { value: 3, unit: "months" }, GEN_NOW_MS);
});
afterEach(async () => {
  handle.sqlite.close();
  dir.close();
});

describe("synthetic scale", () => {
  it("[TPR-BAT-09][TPR-BAT-05] a generated workspace is cleaned within the batch bounds (batches sized by work), once", async () => {
    const batches: Array<{ rows: number; bytes: number }> = [];
    const first = await runCleanupPass({
      store: storeOf(handle.sqlite),
      clock: manualClock(GEN_NOW_MS),
      operationId: "scale-1",
      wait: async () => {},
      onBatch: ({ rows, bytes }) => batches.push({ rows, bytes }),
    });
    expect(first.state).toBe("succeeded");
    // Batches start at 100 rows and grow by work (spanning sessions and
    // tasks), never past the row ceiling or 8 MiB unless one row travels alone.
    expect(batches[0]!.rows).toBeLessThanOrEqual(100);
    expect(Math.max(...batches.map((b) => b.rows))).toBeGreaterThan(100);
    for (const batch of batches) {
      expect(batch.rows).toBeLessThanOrEqual(BATCH_LIMITS.maxRows);
      if (batch.rows > 1) expect(batch.bytes).toBeLessThanOrEqual(8 * MIB);
      expect(batch.bytes).toBeLessThanOrEqual(32 * MIB);
    }
    // The generated 30 MiB row travelled alone.
    expect(batches.some((b) => b.rows === 1 && b.bytes > 8 * MIB)).toBe(true);
    const marked = countMarkedRows(handle.sqlite);
    expect(first.operation?.changedMessages).toBe(marked);
    expect(marked).toBeGreaterThan(1_000);
    expect(first.operation?.skipped).toMatchObject({ recent_activity: expect.any(Number), live_task: expect.any(Number) });

    const second = await runCleanupPass({ store: storeOf(handle.sqlite), clock: manualClock(GEN_NOW_MS), operationId: "scale-2", wait: async () => {} });
    expect(second.operation?.changedMessages).toBe(0);
    expect(second.operation?.skipped.already_removed).toBe(marked);
  });

  it("[TPR-ELIG-15][TPR-BAT-09] on a populated database every probe still avoids a scan of messages", async () => {
    handle.sqlite.exec("analyze");
    for (const [name, sql] of Object.entries(PROBE_SQL)) {
      const plan = (handle.sqlite.prepare(`explain query plan ${sql}`).all("task-00000001-s0") as Array<{ detail: string }>).map((r) => r.detail).join(" | ");
      expect(plan, name).not.toMatch(/SCAN (messages|m)\b/);
    }
  });
});
