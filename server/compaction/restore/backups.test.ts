// The backups a per-task restore may read, and the check each passes first:
// the candidates are those taken no later than the task's removals; a
// backup is hashed and integrity-checked on a real SQLite file, the
// preparation's backup is proven by its receipt's hash instead of a second
// integrity check, a full check is remembered only while the file is the
// same file, and a symlink, a damaged file or a file that no longer matches
// its receipt is refused with backup_unusable.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { sha256File } from "@/server/maintenance/backups/hash";
import { generateBackupName } from "@/server/maintenance/backups/names";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import type { MaintenanceStore } from "@/server/maintenance/store";
import { checkBackup, chooseBackup, createBackupCheckCache, listRestoreCandidates, type BackupCheckCache } from "./backups";

let t: TestDb;
let backups: string;
let store: MaintenanceStore;
let integrityChecks: number;
let hashes: number;
let cache: BackupCheckCache;
const hasher = (file: string) => {
  hashes += 1;
  return sha256File(file);
};

beforeEach(() => {
  t = createTestDb("restore-backups-");
  backups = path.join(t.dir, "backups");
  fs.mkdirSync(backups);
  const real = createSqliteMaintenanceStore(t.db);
  integrityChecks = 0;
  hashes = 0;
  store = {
    ...real,
    verifyFile: (file) => {
      integrityChecks += 1;
      return real.verifyFile(file);
    },
  };
  cache = createBackupCheckCache();
});
afterEach(() => t.close());

/** A published backup of the test database, named for `atMs`. */
function publish(atMs: number): string {
  const name = generateBackupName(atMs);
  t.sqlite.prepare("vacuum into ?").run(path.join(backups, name));
  return name;
}

const entryOf = async (name: string) => (await chooseBackup({ dbFile: t.file, span: null, name }));
const check = async (name: string, receipt: { name: string; sha256: string } | null = null) =>
  checkBackup({ entry: await entryOf(name), dbFile: t.file, store, receipt, cache, hasher });
const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
  return "resolved";
};

describe("restore candidates", () => {
  it("lists the backups taken no later than the last removal, newest first; coversAll when no later than the first too (names floor to the second)", async () => {
    const at = (s: string) => Date.parse(`2026-06-01T${s}Z`);
    const [a, b, c] = [publish(at("10:00:00")), publish(at("11:00:00.900")), publish(at("12:00:00"))];
    const span = { firstRemovedMs: at("10:30:00"), lastRemovedMs: at("11:00:00.100") };
    const listed = await listRestoreCandidates({ dbFile: t.file, span });
    expect(listed.map((entry) => [entry.name, entry.coversAll])).toEqual([
      [b, false],
      [a, true],
    ]);
    expect(listed.map((entry) => entry.name)).not.toContain(c);
    expect((await chooseBackup({ dbFile: t.file, span })).name).toBe(a);
    expect(await listRestoreCandidates({ dbFile: t.file, span: null })).toEqual([]);
    expect(await codeOf(chooseBackup({ dbFile: t.file, span: { firstRemovedMs: at("09:00:00"), lastRemovedMs: at("09:00:00") } }))).toBe("no_restore_backup");
    expect(await codeOf(chooseBackup({ dbFile: t.file, span, name: "../workspace.db" }))).toBe("invalid_request");
    expect(await codeOf(chooseBackup({ dbFile: t.file, span, name: generateBackupName(at("13:00:00")) }))).toBe("not_found");
  });
});

describe("the check before a restore reads a backup", () => {
  it("hashes and integrity-checks a backup, then trusts the result while the file is the same file", async () => {
    const name = publish(Date.UTC(2026, 5, 1));
    const first = await check(name);
    expect(first.sha256).toBe(await sha256File(path.join(backups, name)));
    expect([hashes, integrityChecks]).toEqual([1, 1]);
    await check(name);
    expect([hashes, integrityChecks]).toEqual([1, 1]);
    // Touched (same bytes, new mtime): checked again.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(backups, name), later, later);
    await check(name);
    expect([hashes, integrityChecks]).toEqual([2, 2]);
  });

  it("the preparation's backup is proven by its receipt's hash (no second integrity check); a mismatch is refused", async () => {
    const name = publish(Date.UTC(2026, 5, 1));
    const sha256 = await sha256File(path.join(backups, name));
    const checked = await check(name, { name, sha256 });
    expect(checked.preparation).toBe(true);
    expect([hashes, integrityChecks]).toEqual([1, 0]);
    expect(await codeOf(check(name, { name, sha256: "0".repeat(64) }))).toBe("backup_unusable");
  });

  it("a damaged file, a symlink or a missing file is backup_unusable", async () => {
    const damaged = publish(Date.UTC(2026, 5, 1));
    const file = path.join(backups, damaged);
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(4096, 0x41), 0, 4096, 4096);
    fs.closeSync(fd);
    expect(await codeOf(check(damaged))).toBe("backup_unusable");

    const target = publish(Date.UTC(2026, 5, 2));
    const link = generateBackupName(Date.UTC(2026, 5, 3));
    fs.symlinkSync(path.join(backups, target), path.join(backups, link));
    const entry = { name: link, sizeBytes: 1, createdAt: "2026-06-03T00:00:00.000Z" };
    expect(await codeOf(checkBackup({ entry, dbFile: t.file, store, receipt: null, cache, hasher }))).toBe("backup_unusable");
    fs.rmSync(path.join(backups, target));
    expect(await codeOf(checkBackup({ entry: { ...entry, name: target }, dbFile: t.file, store, receipt: null, cache, hasher }))).toBe("backup_unusable");
  });
});
