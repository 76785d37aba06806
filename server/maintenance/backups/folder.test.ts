// #26 item 7: a `backups` entry someone else created beside the database (a
// symlink to a folder of theirs, a file, another user's folder) is never
// followed: no backup is written there, nothing there is listed, restored,
// downloaded, deleted, swept or chmodded. On the previous code createBackup
// wrote the full copy through the symlink and restore read a planted file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "../guard";
import { createQuiescerRegistry } from "../quiescence";
import { createSqliteMaintenanceStore } from "../sqlite-store";
import { seededDb, silentLog, testClock } from "../test-support/fixtures";
import { deleteBackup, listBackups, openBackupStream } from "./catalog";
import { createBackup, sweepStaleStaging } from "./create";
import { tightenBackupModes } from "./file-modes";
import { backupsFolder, backupsFolderState } from "./folder";
import { sha256File } from "./hash";
import { STAGING_PREFIX } from "./names";
import { restoreBackup } from "./restore";
import { probeReceipt } from "./verify";

let t: TestDb | undefined;
let outside: string | undefined;
afterEach(() => {
  t?.close();
  if (outside) fs.rmSync(outside, { recursive: true, force: true });
  t = undefined;
  outside = undefined;
});

const PLANTED = "workspace-2026-11-01T00-00-00Z-0badc0de.db";

function messageCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("select count(*) as n from messages").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** A database with `backups` a symlink to a folder another user controls, holding a planted "backup" and a staging folder. */
function symlinkedBackups(): { db: TestDb; target: string } {
  const db = seededDb(5, 100);
  const target = fs.mkdtempSync(path.join(os.tmpdir(), "attacker-"));
  // The planted file is a valid database with other contents (2 messages), world-readable.
  const planted = seededDb(2, 10);
  fs.copyFileSync(planted.file, path.join(target, PLANTED));
  planted.close();
  fs.chmodSync(path.join(target, PLANTED), 0o644);
  fs.mkdirSync(path.join(target, `${STAGING_PREFIX}theirs`));
  fs.symlinkSync(target, path.join(db.dir, "backups"));
  return { db, target };
}

const restoreOptions = (db: TestDb, name: string) => ({
  store: createSqliteMaintenanceStore(db.db),
  dbFile: db.file,
  name,
  confirm: name,
  guard: createMaintenanceGuard(),
  quiescers: createQuiescerRegistry(),
  closeDatabase: () => db.sqlite.close(),
  log: silentLog,
});

describe("the backups folder", () => {
  it("[#26-7] a symlinked backups folder is never followed: no write, list, restore, download, delete, sweep or chmod through it", async () => {
    const { db, target } = symlinkedBackups();
    t = db;
    outside = target;
    const before = fs.readdirSync(target).sort();
    expect(backupsFolderState(db.file)).toBe("symlink");

    const create = createBackup({ store: createSqliteMaintenanceStore(db.db), dbFile: db.file, clock: testClock(), label: "manual", guard: createMaintenanceGuard(), log: silentLog });
    await expect(create).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    await expect(listBackups({ dbFile: db.file })).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    await expect(restoreBackup(restoreOptions(db, PLANTED))).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    await expect(openBackupStream({ dbFile: db.file, name: PLANTED })).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    await expect(deleteBackup({ dbFile: db.file, name: PLANTED, guard: createMaintenanceGuard() })).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    const receipt = { name: PLANTED, sizeBytes: fs.statSync(path.join(target, PLANTED)).size, completedAt: "2026-11-01T00:00:00.000Z", sha256: await sha256File(path.join(target, PLANTED)) };
    expect(await probeReceipt({ dbFile: db.file, receipt })).toEqual({ ok: false, code: "backup_symlink" });
    expect(await sweepStaleStaging({ dbFile: db.file, guard: createMaintenanceGuard() })).toBe(0);
    expect(tightenBackupModes({ dbFile: db.file })).toEqual([]);

    // The database is the one it was; the other folder holds exactly what it held, modes untouched.
    expect(db.sqlite.open).toBe(true);
    expect(messageCount(db.file)).toBe(5);
    expect(fs.readdirSync(target).sort()).toEqual(before);
    expect(fs.statSync(path.join(target, PLANTED)).mode & 0o777).toBe(0o644);
    expect(fs.existsSync(`${db.file}.restore-pending`)).toBe(false);
  });

  it("[#26-7] a file where the folder should be is refused, not replaced", async () => {
    t = seededDb(3, 10);
    fs.writeFileSync(path.join(t.dir, "backups"), "not a folder");
    expect(backupsFolderState(t.file)).toBe("not_directory");
    await expect(backupsFolder(t.file, { create: true })).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    expect(fs.readFileSync(path.join(t.dir, "backups"), "utf8")).toBe("not a folder");
  });

  it.skipIf(process.getuid?.() !== 0)("[#26-7] another user's backups folder is refused", async () => {
    t = seededDb(3, 10);
    const dir = path.join(t.dir, "backups");
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 65534, 65534);
    expect(backupsFolderState(t.file)).toBe("foreign_owner");
    const create = createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "manual", guard: createMaintenanceGuard(), log: silentLog });
    await expect(create).rejects.toMatchObject({ code: "backups_folder_unsafe" });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a missing folder is created 0700 by the first backup, and a looser one of ours is tightened", async () => {
    t = seededDb(3, 10);
    expect(await backupsFolder(t.file)).toBeNull();
    expect(await listBackups({ dbFile: t.file })).toEqual([]);
    const dir = (await backupsFolder(t.file, { create: true }))!;
    expect(fs.lstatSync(dir).mode & 0o777).toBe(0o700);
    fs.chmodSync(dir, 0o755);
    await backupsFolder(t.file);
    expect(fs.lstatSync(dir).mode & 0o777).toBe(0o700);
  });
});
