import { wrapSqliteDb } from "@/server/db/sqlite-db";
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DbHandle } from "@/server/db/client";
import type { TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "./guard";
import { seededDb, silentLog, testClock } from "./test-support/fixtures";
import type { TableStats } from "@/lib/database/api";
import { optimizeDatabase, vacuumDatabase } from "./vacuum";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

let t: TestDb | undefined;
let reopened: DbHandle | undefined;
afterEach(() => {
  if (reopened?.sqlite.open) reopened.sqlite.close();
  reopened = undefined;
  t?.close();
});

describe("collectDatabaseStats", () => {
  it("reports file, WAL, pages, free pages and per-table rows and bytes", async () => {
    t = seededDb(50, 6000);
    const stats = await createSqliteMaintenanceStore(t.db).databaseStats();
    expect(stats.pageSize).toBe(4096);
    expect(stats.fileBytes).toBe(fs.statSync(t.file).size);
    expect(stats.walBytes).toBe(fs.statSync(`${t.file}-wal`).size);
    expect(stats.freeBytes).toBe(stats.freePages * stats.pageSize);
    const byName = Object.fromEntries(stats.tables!.map((table) => [table.name, table])) as Record<string, TableStats>;
    expect(byName.messages).toMatchObject({ rows: 50, bytesMethod: "remainder" });
    expect(byName.tasks).toMatchObject({ rows: 1, bytesMethod: "dbstat" });
    expect(byName.task_sessions?.rows).toBe(1);
    expect(byName.users?.rows).toBe(0);
    // 50 rows of ~6 KB each need at least 50 pages.
    expect(byName.messages?.tableBytes).toBeGreaterThanOrEqual(50 * 6000);
    expect(byName.messages?.indexBytes).toBeGreaterThan(0);
    // Every used page is attributed to exactly one b-tree.
    const attributed = stats.tables!.reduce((sum, table) => sum + table.totalBytes, 0);
    expect(attributed).toBeLessThanOrEqual((stats.pageCount - stats.freePages) * stats.pageSize);
    expect(stats.tables![0]?.name).toBe("messages");
  });

  it("[TPR-UI-01] never reads the messages table pages (payload bodies): stats still work when they are unreadable", async () => {
    t = seededDb(40, 9000);
    const pages = t.sqlite.prepare("select pageno from dbstat where name = 'messages'").all() as { pageno: number }[];
    expect(pages.length).toBeGreaterThan(40); // leaf, interior and overflow pages holding the bodies
    const expected = (await createSqliteMaintenanceStore(t.db).databaseStats()).tables!.find((x) => x.name === "messages");
    t.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    t.sqlite.close();
    // Destroy every page of the messages table b-tree on disk.
    const fd = fs.openSync(t.file, "r+");
    for (const { pageno } of pages) fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, (pageno - 1) * 4096);
    fs.closeSync(fd);
    reopened = openDatabase({ file: t.file, migrate: false });
    expect(() => reopened!.sqlite.prepare("select sum(length(metadata)) from messages").get()).toThrow(/malformed|corrupt/i);
    const stats = await createSqliteMaintenanceStore(wrapSqliteDb({ sqlite: reopened.sqlite, file: t.file }, { reader: false })).databaseStats();
    expect(stats.tables!.find((x) => x.name === "messages")).toEqual(expected);
  });
});

describe("vacuumDatabase", () => {
  it("[TPR-OBS-04] compacts after a cleanup freed pages and reports before/after sizes", async () => {
    t = seededDb(60, 8000);
    t.sqlite.prepare("update messages set metadata = '{}'").run();
    t.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const freeBefore = (await createSqliteMaintenanceStore(t.db).databaseStats()).freePages;
    expect(freeBefore).toBeGreaterThan(60);
    const result = await vacuumDatabase({ store: createSqliteMaintenanceStore(t.db), clock: testClock(), guard: createMaintenanceGuard(), log: silentLog });
    expect(result.freedBytes).toBe(result.beforeBytes - result.afterBytes);
    expect(result.freedBytes).toBeGreaterThan(60 * 4096);
    expect(result.afterBytes).toBe(fs.statSync(t.file).size + fs.statSync(`${t.file}-wal`).size);
    expect((await createSqliteMaintenanceStore(t.db).databaseStats()).freePages).toBe(0);
    expect(result.durationMs).toBe(0); // manual clock: no time passed
  });

  it("[TPR-SCH-05] refuses with maintenance_busy while a batch holds the guard, and changes nothing", async () => {
    t = seededDb(10, 8000);
    t.sqlite.prepare("update messages set metadata = '{}'").run();
    const guard = createMaintenanceGuard();
    await guard.tryAcquire({ owner: "batch", kind: "compaction" });
    const before = (await createSqliteMaintenanceStore(t.db).databaseStats()).freePages;
    await expect(vacuumDatabase({ store: createSqliteMaintenanceStore(t.db), clock: testClock(), guard, log: silentLog })).rejects.toMatchObject({ code: "maintenance_busy" });
    await expect(optimizeDatabase({ store: createSqliteMaintenanceStore(t.db), clock: testClock(), guard, log: silentLog })).rejects.toMatchObject({ code: "maintenance_busy" });
    expect((await createSqliteMaintenanceStore(t.db).databaseStats()).freePages).toBe(before);
  });

  it("answers maintenance_busy (not a 500) when a long write holds the database lock", async () => {
    t = seededDb(5, 10);
    t.sqlite.exec("BEGIN IMMEDIATE");
    const guard = createMaintenanceGuard();
    try {
      await expect(vacuumDatabase({ store: createSqliteMaintenanceStore(t.db), clock: testClock(), guard, log: silentLog, busyTimeoutMs: 0 })).rejects.toMatchObject({ code: "maintenance_busy" });
    } finally {
      t.sqlite.exec("ROLLBACK");
    }
    expect(await guard.holder()).toBeNull();
  });

  it("optimize runs under the guard and releases it", async () => {
    t = seededDb(5, 10);
    const guard = createMaintenanceGuard();
    await expect(optimizeDatabase({ store: createSqliteMaintenanceStore(t.db), clock: testClock(), guard, log: silentLog })).resolves.toEqual({ durationMs: 0 });
    expect(await guard.holder()).toBeNull();
  });
});
