import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { seededDb } from "./test-support/fixtures";
import { inlineFallbacks, readInThread, runSqliteThread, SqliteThreadError } from "./sqlite-thread";

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
