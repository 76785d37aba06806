import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "../guard";
import { createQuiescerRegistry } from "../quiescence";
import { seededDb, silentLog, testClock } from "../test-support/fixtures";
import { createBackup } from "./create";
import { restoreBackup, sweepRestorePending } from "./restore";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

let t: TestDb | undefined;
afterEach(() => t?.close());

function messageCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("select count(*) as n from messages").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function backupThenChange() {
  t = seededDb(5, 100);
  const receipt = await createBackup({ store: createSqliteMaintenanceStore(t), dbFile: t.file, clock: testClock(), label: "manual", guard: createMaintenanceGuard(), log: silentLog });
  t.sqlite.prepare("delete from messages where id in ('m0','m1')").run();
  return receipt;
}

describe("restoreBackup", () => {
  it("[TPR-SCH-06] stops the worker, replaces the database, and says a restart is required", async () => {
    const receipt = await backupThenChange();
    const events: string[] = [];
    const quiescers = createQuiescerRegistry();
    const off = quiescers.register("retention-worker", {
      stop: async () => void events.push(`stop:${t!.sqlite.open}`),
      start: () => events.push(`start:${t!.sqlite.open}`),
    });
    try {
      const result = await restoreBackup({
        store: createSqliteMaintenanceStore(t!), dbFile: t!.file,
        name: receipt.name,
        confirm: receipt.name,
        guard: createMaintenanceGuard(),
        quiescers,
        closeDatabase: () => {
          events.push("close");
          t!.sqlite.close();
        },
        log: silentLog,
      });
      expect(result).toEqual({ restored: receipt.name, restartRequired: true });
    } finally {
      off();
    }
    // The worker was stopped while the database was still open, before it was closed and replaced.
    expect(events).toEqual(["stop:true", "close", "start:false"]);
    expect(messageCount(t!.file)).toBe(5);
    expect(fs.existsSync(`${t!.file}.restore-pending`)).toBe(false);
    expect(fs.existsSync(`${t!.file}-wal`)).toBe(false);
    expect(fs.statSync(t!.file).mode & 0o777).toBe(0o600);
  });

  it.each([undefined, "", "yes", "WORKSPACE"])("requires the exact backup name as confirmation (%j)", async (confirm) => {
    const receipt = await backupThenChange();
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!), dbFile: t!.file, name: receipt.name, confirm, guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "invalid_request" });
    expect(t!.sqlite.open).toBe(true);
    expect(messageCount(t!.file)).toBe(3);
  });

  it("refuses a backup failing integrity_check and changes nothing", async () => {
    const receipt = await backupThenChange();
    const file = path.join(t!.dir, "backups", receipt.name);
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096);
    fs.closeSync(fd);
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!), dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "backup_unusable" });
    expect(t!.sqlite.open).toBe(true);
    expect(fs.existsSync(`${t!.file}.restore-pending`)).toBe(false);
    expect(messageCount(t!.file)).toBe(3);
  });

  it("[TPR-SCH-05] refuses with maintenance_busy while a batch holds the guard", async () => {
    const receipt = await backupThenChange();
    const guard = createMaintenanceGuard();
    guard.tryAcquire({ owner: "batch", kind: "compaction" });
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!), dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard, quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "maintenance_busy" });
    expect(t!.sqlite.open).toBe(true);
  });

  it("refuses traversal names before checking anything else", async () => {
    await backupThenChange();
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!), dbFile: t!.file, name: "../workspace.db", confirm: "../workspace.db", guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "invalid_request" });
    expect(t!.sqlite.open).toBe(true);
  });
});

describe("sweepRestorePending", () => {
  it("drops the copy of a restore that never reached its rename and keeps the database", async () => {
    t = seededDb(2, 10);
    fs.writeFileSync(`${t.file}.restore-pending`, "partial copy");
    expect(await sweepRestorePending({ dbFile: t.file })).toBe(true);
    expect(fs.existsSync(`${t.file}.restore-pending`)).toBe(false);
    expect(await sweepRestorePending({ dbFile: t.file })).toBe(false);
    expect(messageCount(t.file)).toBe(2);
  });
});
