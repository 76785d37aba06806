import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "../guard";
import { seededDb, silentLog, testClock } from "../test-support/fixtures";
import { listBackups } from "./catalog";
import { createBackup, sweepStaleStaging } from "./create";
import { sha256File } from "./hash";
import { BACKUP_NAME_PATTERN } from "./names";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

let t: TestDb | undefined;
afterEach(async () => t?.close());

function backupsDir(db: TestDb) {
  return path.join(db.dir, "backups");
}

describe("createBackup", () => {
  it("[TPR-PREP-03] [TPR-PREP-04] publishes a verified 0600 snapshot and returns its receipt", async () => {
    t = seededDb();
    const guard = createMaintenanceGuard();
    const receipt = await createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "manual", guard, log: silentLog });
    expect(receipt.name).toMatch(BACKUP_NAME_PATTERN);
    expect(receipt.name.startsWith("workspace-2026-11-29T22-30-00Z-")).toBe(true);
    expect(receipt.completedAt).toBe("2026-11-29T22:30:00.000Z");
    const file = path.join(backupsDir(t), receipt.name);
    const stats = fs.statSync(file);
    expect(stats.mode & 0o777).toBe(0o600);
    expect(receipt.sizeBytes).toBe(stats.size);
    expect(receipt.sha256).toBe(await sha256File(file));
    const copy = new Database(file, { readonly: true });
    expect(copy.prepare("select count(*) as n from messages").get()).toEqual({ n: 20 });
    copy.close();
    // Staging is gone and the guard is free again.
    expect(fs.readdirSync(backupsDir(t))).toEqual([receipt.name]);
    expect(await guard.holder()).toBeNull();
  });

  it("[TPR-PREP-03] stages in a private 0700 directory that the list never shows", async () => {
    t = seededDb();
    const seen: { mode: number; listed: string[] }[] = [];
    const receipt = await createBackup({
      store: createSqliteMaintenanceStore(t.db), dbFile: t.file,
      clock: testClock(),
      label: "manual",
      guard: createMaintenanceGuard(),
      log: silentLog,
      afterSnapshot: async (stagingFile) => {
        const dir = path.dirname(stagingFile);
        expect(path.basename(dir).startsWith(".staging-")).toBe(true);
        seen.push({ mode: fs.statSync(dir).mode & 0o777, listed: (await listBackups({ dbFile: t!.file })).map((b) => b.name) });
      },
    });
    expect(seen).toEqual([{ mode: 0o700, listed: [] }]);
    expect((await listBackups({ dbFile: t.file })).map((b) => b.name)).toEqual([receipt.name]);
  });

  it("[TPR-PREP-03] [TPR-PREP-06] a snapshot failing integrity_check publishes nothing", async () => {
    t = seededDb();
    const guard = createMaintenanceGuard();
    const attempt = createBackup({
      store: createSqliteMaintenanceStore(t.db), dbFile: t.file,
      clock: testClock(),
      label: "preparation",
      guard,
      log: silentLog,
      afterSnapshot: (stagingFile) => {
        // Overwrite page 2 onwards with garbage, keeping the header readable.
        const fd = fs.openSync(stagingFile, "r+");
        fs.writeSync(fd, Buffer.alloc(8192, 0xab), 0, 8192, 4096);
        fs.closeSync(fd);
      },
    });
    await expect(attempt).rejects.toMatchObject({ code: "backup_failed", message: expect.stringMatching(/integrity/) });
    expect(fs.readdirSync(backupsDir(t))).toEqual([]);
    expect(await guard.holder()).toBeNull();
  });

  it("[TPR-SCH-05] refuses with maintenance_busy while another operation holds the guard", async () => {
    t = seededDb();
    const guard = createMaintenanceGuard();
    const batch = (await guard.tryAcquire({ owner: "batch", kind: "compaction" }))!;
    await expect(createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "manual", guard, log: silentLog })).rejects.toMatchObject({
      code: "maintenance_busy",
    });
    batch.release();
    expect(fs.existsSync(backupsDir(t)) ? fs.readdirSync(backupsDir(t)) : []).toEqual([]);
  });

  it("runs under a lease the caller already holds and leaves it held", async () => {
    t = seededDb();
    const guard = createMaintenanceGuard();
    const lease = await guard.acquireExclusive({ owner: "prep-1", kind: "backup" });
    await createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "preparation", guard, lease, log: silentLog });
    expect(lease.held()).toBe(true);
  });

  it("[TPR-PREP-07] cancellation at a step boundary publishes nothing and frees the guard", async () => {
    t = seededDb();
    const guard = createMaintenanceGuard();
    const controller = new AbortController();
    const attempt = createBackup({
      store: createSqliteMaintenanceStore(t.db), dbFile: t.file,
      clock: testClock(),
      label: "preparation",
      guard,
      signal: controller.signal,
      log: silentLog,
      afterSnapshot: () => controller.abort(),
    });
    await expect(attempt).rejects.toMatchObject({ name: "AbortError" });
    expect(fs.readdirSync(backupsDir(t))).toEqual([]);
    expect(await guard.holder()).toBeNull();
  });

  it("keeps only the newest N backups after publishing", async () => {
    t = seededDb(2, 10);
    const clock = testClock();
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      names.push((await createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock, label: "manual", keep: 3, guard: createMaintenanceGuard(), log: silentLog })).name);
      clock.advance(1000);
    }
    expect((await listBackups({ dbFile: t.file })).map((b) => b.name)).toEqual(names.slice(1).reverse());
  });
});

describe("sweepStaleStaging", () => {
  it("[TPR-PREP-10] removes staging directories a crashed backup left behind, never published files", async () => {
    t = seededDb(2, 10);
    const receipt = await createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "manual", guard: createMaintenanceGuard(), log: silentLog });
    const stale = path.join(backupsDir(t), ".staging-deadbeef");
    fs.mkdirSync(stale, { mode: 0o700 });
    fs.writeFileSync(path.join(stale, "workspace-2026-11-29T22-30-00Z-00000000.db"), "half written");
    expect(await sweepStaleStaging({ dbFile: t.file, guard: createMaintenanceGuard() })).toBe(1);
    expect(fs.readdirSync(backupsDir(t))).toEqual([receipt.name]);
  });

  it("leaves a live staging directory alone while a backup holds the guard", async () => {
    t = seededDb(2, 10);
    const guard = createMaintenanceGuard();
    fs.mkdirSync(path.join(backupsDir(t), ".staging-live"), { recursive: true });
    const lease = await guard.acquireExclusive({ owner: "b", kind: "backup" });
    expect(await sweepStaleStaging({ dbFile: t.file, guard })).toBe(0);
    lease.release();
    expect(await sweepStaleStaging({ dbFile: t.file, guard })).toBe(1);
  });
});
