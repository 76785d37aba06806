import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "../guard";
import { seededDb, silentLog, testClock } from "../test-support/fixtures";
import { createBackup } from "./create";
import { sha256File, type Hasher } from "./hash";
import { createVerificationCache, verifyReceipt, verifyReceiptCached, type BackupReceipt } from "./verify";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

let t: TestDb | undefined;
afterEach(() => t?.close());

async function backedUp(): Promise<{ db: TestDb; receipt: BackupReceipt; file: string }> {
  t = seededDb();
  const receipt = await createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "preparation", guard: createMaintenanceGuard(), log: silentLog });
  return { db: t, receipt, file: path.join(t.dir, "backups", receipt.name) };
}

function countingHasher(): Hasher & { calls: number } {
  const hasher = (async (file: string) => {
    hasher.calls += 1;
    return sha256File(file);
  }) as Hasher & { calls: number };
  hasher.calls = 0;
  return hasher;
}

describe("verifyReceipt", () => {
  it("[TPR-PREP-04] accepts the untouched backup", async () => {
    const { db, receipt } = await backedUp();
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt })).toEqual({ ok: true });
  });

  it("[TPR-PREP-04] a deleted backup is backup_missing", async () => {
    const { db, receipt, file } = await backedUp();
    fs.rmSync(file);
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt })).toEqual({ ok: false, code: "backup_missing" });
  });

  it("[TPR-PREP-04] a receipt naming something outside backups/ is backup_missing", async () => {
    const { db, receipt } = await backedUp();
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt: { ...receipt, name: "../workspace.db" } })).toEqual({ ok: false, code: "backup_missing" });
  });

  it("[TPR-PREP-04] same-size content change is backup_changed", async () => {
    const { db, receipt, file } = await backedUp();
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.from("zz"), 0, 2, receipt.sizeBytes - 2);
    fs.closeSync(fd);
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt })).toEqual({ ok: false, code: "backup_changed" });
  });

  it("[TPR-PREP-04] a truncated or grown file is backup_changed", async () => {
    const { db, receipt, file } = await backedUp();
    fs.appendFileSync(file, "x");
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt })).toEqual({ ok: false, code: "backup_changed" });
  });

  it("[TPR-PREP-04] a file whose hash matches the receipt but fails integrity_check is backup_corrupt", async () => {
    const { db, receipt, file } = await backedUp();
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096);
    fs.closeSync(fd);
    // A receipt written for the damaged bytes (e.g. corruption before hashing).
    const damaged = { ...receipt, sha256: await sha256File(file) };
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt: damaged })).toEqual({ ok: false, code: "backup_corrupt" });
  });

  it("[TPR-PREP-04] a symlink in place of the backup is refused, even to an identical copy", async () => {
    const { db, receipt, file } = await backedUp();
    const elsewhere = path.join(db.dir, "copy.db");
    fs.renameSync(file, elsewhere);
    fs.symlinkSync(elsewhere, file);
    expect(await verifyReceipt({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt })).toEqual({ ok: false, code: "backup_symlink" });
  });
});

describe("verifyReceiptCached", () => {
  it("[TPR-PREP-05] repeated probes of an unchanged backup hash it once", async () => {
    const { db, receipt } = await backedUp();
    const hasher = countingHasher();
    const cache = createVerificationCache();
    for (let i = 0; i < 5; i++) {
      expect(await verifyReceiptCached({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt, hasher, cache })).toEqual({ ok: true });
    }
    expect(hasher.calls).toBe(1);
  });

  it("[TPR-PREP-05] a change after a cached verification is still detected", async () => {
    const { db, receipt, file } = await backedUp();
    const hasher = countingHasher();
    const cache = createVerificationCache();
    await verifyReceiptCached({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt, hasher, cache });
    // Same size, mtime put back: ctime still moves, so the full check reruns.
    const { atime, mtime } = fs.statSync(file);
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.from("zz"), 0, 2, receipt.sizeBytes - 2);
    fs.closeSync(fd);
    fs.utimesSync(file, atime, mtime);
    expect(await verifyReceiptCached({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt, hasher, cache })).toEqual({ ok: false, code: "backup_changed" });
    expect(hasher.calls).toBe(2);
  });

  it("[TPR-PREP-05] a failed verification is not cached", async () => {
    const { db, receipt, file } = await backedUp();
    const hasher = countingHasher();
    const cache = createVerificationCache();
    const wrong = { ...receipt, sha256: "0".repeat(64) };
    expect(await verifyReceiptCached({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt: wrong, hasher, cache })).toEqual({ ok: false, code: "backup_changed" });
    expect(await verifyReceiptCached({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt: wrong, hasher, cache })).toEqual({ ok: false, code: "backup_changed" });
    expect(hasher.calls).toBe(2);
    fs.rmSync(file);
    expect(await verifyReceiptCached({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, receipt, hasher, cache })).toEqual({ ok: false, code: "backup_missing" });
  });
});
