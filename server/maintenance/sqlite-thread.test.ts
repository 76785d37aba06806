import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { seededDb } from "./test-support/fixtures";
import { createSqliteMaintenanceStore } from "./sqlite-store";
import { inlineFallbacks, readInThread, runSqliteThread, SqliteThreadError, threadStarts } from "./sqlite-thread";

let t: TestDb | undefined;
const cwd = process.cwd();
afterEach(() => {
  process.chdir(cwd);
  t?.close();
});

describe("sqlite thread", () => {
  it("runs a read batch in one transaction on its own connection", async () => {
    t = seededDb(3, 10);
    const [count, pages] = await readInThread(t.file, [
      { sql: "select count(*) as n from messages where session_id = ?", params: ["s1"] },
      { sql: "select page_size as size from pragma_page_size", params: [] },
    ]);
    expect(count).toEqual([{ n: 3 }]);
    expect(pages).toEqual([{ size: 4096 }]);
    expect(inlineFallbacks.count).toBe(0); // it really ran on the thread
  });

  it("reports the SQLite code of a failure, not its message", async () => {
    t = seededDb(1, 10);
    const failure = readInThread(t.file, [{ sql: "select * from no_such_table", params: [] }]);
    await expect(failure).rejects.toBeInstanceOf(SqliteThreadError);
    await expect(failure).rejects.toMatchObject({ code: "SQLITE_ERROR" });
  });

  it("falls back to running inline when the thread cannot load the driver", async () => {
    t = seededDb(2, 10);
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "no-driver-"));
    process.chdir(elsewhere);
    try {
      const before = inlineFallbacks.count;
      expect(await runSqliteThread({ kind: "integrity-check", file: t.file })).toBe(true);
      expect(inlineFallbacks.count).toBe(before + 1);
      expect(await readInThread(t.file, [{ sql: "select count(*) as n from messages", params: [] }])).toEqual([[{ n: 2 }]]);
    } finally {
      process.chdir(cwd);
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("one thread per lane", () => {
  it("[#26-3] 50 parallel stats reads start no thread per request: one persistent thread answers them all", async () => {
    t = seededDb(3, 10);
    // Warm the lane up (it may already exist from the tests above).
    await readInThread(t.file, [{ sql: "select 1 as one", params: [] }]);
    const before = threadStarts.count;
    const reads = Array.from({ length: 50 }, (_, i) => readInThread(t!.file, [{ sql: "select ? as i", params: [i] }]));
    const results = await Promise.all(reads);
    expect(results.map((r) => (r[0] as { i: number }[])[0]!.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(threadStarts.count).toBe(before);
  });

  it("[#26-3] parallel Database-page statistics of one store share one walk; another store of the same file (a restore's, another runtime's) walks for itself", async () => {
    t = seededDb(3, 10);
    const store = createSqliteMaintenanceStore(t.db);
    const calls = Array.from({ length: 20 }, () => store.databaseStats());
    expect(new Set(calls).size).toBe(1);
    const other = createSqliteMaintenanceStore(t.db).databaseStats();
    expect(calls).not.toContain(other);
    const [first] = await Promise.all(calls);
    expect(first!.tables?.some((table) => table.name === "messages")).toBe(true);
    expect((await other).tables?.some((table) => table.name === "messages")).toBe(true);
    // Once answered, the next read walks again.
    const again = store.databaseStats();
    expect(again).not.toBe(calls[0]);
    await again;
  });

  it("a long maintenance statement does not hold reads back (separate lanes)", async () => {
    t = seededDb(3, 10);
    const integrity = runSqliteThread({ kind: "integrity-check", file: t.file });
    const read = readInThread(t.file, [{ sql: "select 2 as two", params: [] }]);
    expect(await read).toEqual([[{ two: 2 }]]);
    expect(await integrity).toBe(true);
  });
});
