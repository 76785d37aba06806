import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR, openDatabase } from "@/server/db/client";
import { migrationsDirBefore, type TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "../guard";
import { createQuiescerRegistry } from "../quiescence";
import { seededDb, silentLog, testClock } from "../test-support/fixtures";
import { createBackup } from "./create";
import { restoreBackup, sweepRestorePending } from "./restore";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import { backupPath } from "./names";

/** The journal time of the migration whose tag ends with `suffix`, and the tables the migrations after it create. */
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

/**
 * Rebuilds a backup file as an older release would have written it: a fresh
 * database migrated only up to (not including) the migration tagged
 * `*_${tagSuffix}`, holding the backup's rows in the columns that existed then.
 */
function rewriteWithSchemaBefore(file: string, tagSuffix: string): void {
  const migrations = migrationsDirBefore(tagSuffix);
  const older = `${file}.older`;
  try {
    const db = openDatabase({ file: older, migrationsDir: migrations }).sqlite;
    try {
      db.pragma("foreign_keys = OFF");
      db.prepare("attach database ? as full").run(file);
      const tables = db.prepare("select name from main.sqlite_master where type = 'table' and name not like 'sqlite_%' and name <> '__drizzle_migrations'").pluck().all() as string[];
      for (const table of tables) {
        const cols = (db.prepare(`select name from pragma_table_info(?, 'main')`).pluck().all(table) as string[]).map((c) => `"${c}"`).join(", ");
        db.exec(`insert into main."${table}" (${cols}) select ${cols} from full."${table}"`);
      }
      db.exec("detach database full");
      db.pragma("journal_mode = DELETE");
    } finally {
      db.close();
    }
    fs.renameSync(older, file);
  } finally {
    fs.rmSync(migrations, { recursive: true, force: true });
    fs.rmSync(older, { force: true });
  }
}

function columnsOf(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("select name from pragma_table_info(?)").pluck().all(table) as string[];
  } finally {
    db.close();
  }
}

function journalLength(): number {
  return (JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;
}

async function backupThenChange() {
  t = seededDb(5, 100);
  const receipt = await createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "manual", guard: createMaintenanceGuard(), log: silentLog });
  t.sqlite.prepare("delete from messages where id in ('m0','m1')").run();
  return receipt;
}

describe("restoreBackup", () => {
  it("[TPR-SCH-06] stops the worker, replaces the database, and says a restart is required", async () => {
    const receipt = await backupThenChange();
    const events: string[] = [];
    const quiescers = createQuiescerRegistry();
    const off = quiescers.register("compaction-worker", {
      stop: async () => void events.push(`stop:${t!.sqlite.open}`),
      start: () => events.push(`start:${t!.sqlite.open}`),
    });
    try {
      const result = await restoreBackup({
        store: createSqliteMaintenanceStore(t!.db), dbFile: t!.file,
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

  it("restores a backup made before the account columns existed: the copy is migrated before the sign-in state is carried", async () => {
    const receipt = await backupThenChange();
    t!.sqlite.prepare("insert into users (id, email, role, password_hash, created_at, disabled_at_ms) values ('u1', 'a@example.com', 'admin', 'h', 'x', 5)").run();
    // Turn the backup into one written before the account migration: the same rows in the schema of
    // every migration before it, whichever migrations were added after it.
    rewriteWithSchemaBefore(backupPath(t!.file, receipt.name), "account_lifecycle");
    expect(columnsOf(backupPath(t!.file, receipt.name), "users")).not.toContain("disabled_at_ms");
    await restoreBackup({ store: createSqliteMaintenanceStore(t!.db), dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    const restored = new Database(t!.file, { readonly: true });
    try {
      expect(restored.prepare("select id, disabled_at_ms as disabled from users").all()).toEqual([{ id: "u1", disabled: 5 }]);
      // Every migration ran on the copy, the later ones included.
      expect(restored.prepare("select count(*) as n from __drizzle_migrations").get()).toEqual({ n: journalLength() });
    } finally {
      restored.close();
    }
    expect(messageCount(t!.file)).toBe(5);
  });

  it.each([undefined, "", "yes", "WORKSPACE"])("requires the exact backup name as confirmation (%j)", async (confirm) => {
    const receipt = await backupThenChange();
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!.db), dbFile: t!.file, name: receipt.name, confirm, guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "invalid_request" });
    expect(t!.sqlite.open).toBe(true);
    expect(messageCount(t!.file)).toBe(3);
  });

  // #26 item 7: the previous code verified <db>.restore-pending by name and renamed whatever was there later.
  it.each(["after the integrity check", "after the sign-in state was carried"] as const)(
    "[#26-7] a staged copy swapped %s is refused and the database is not changed",
    async (when) => {
      const receipt = await backupThenChange();
      const other = seededDb(1, 10);
      const store = createSqliteMaintenanceStore(t!.db);
      const staged: string[] = [];
      const swap = (file: string) => {
        staged.push(file);
        fs.copyFileSync(other.file, `${file}.swap`);
        fs.renameSync(`${file}.swap`, file);
      };
      const attacked: typeof store = {
        ...store,
        verifyFile: async (file) => {
          const ok = await store.verifyFile(file);
          if (when === "after the integrity check") swap(file);
          return ok;
        },
        carrySignInStateAndClose: async (file) => {
          const carried = await store.carrySignInStateAndClose(file);
          if (when === "after the sign-in state was carried") swap(file);
          return carried;
        },
      };
      let reopened = 0;
      const quiescers = createQuiescerRegistry();
      quiescers.register("reopen", { stop: async () => {}, start: () => void (reopened += 1) });
      try {
        const attempt = restoreBackup({ store: attacked, dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard: createMaintenanceGuard(), quiescers, closeDatabase: () => t!.sqlite.close(), log: silentLog });
        await expect(attempt).rejects.toMatchObject({ code: "backup_unusable" });
        expect(staged).toHaveLength(1);
        // The staged copy lives in a private folder and is gone with it.
        expect(path.dirname(staged[0]!)).toBe(`${t!.file}.restore-pending`);
        expect(fs.existsSync(`${t!.file}.restore-pending`)).toBe(false);
        // The live database is the one before the restore: 3 messages, not the backup's 5 nor the swapped file's 1.
        expect(messageCount(t!.file)).toBe(3);
        if (when === "after the sign-in state was carried") expect(reopened).toBe(1);
      } finally {
        other.close();
      }
    },
  );

  it("[#26-7] the backup is copied into a private folder, 0700, its copy 0600; a link planted at the folder's name is not followed", async () => {
    const receipt = await backupThenChange();
    const store = createSqliteMaintenanceStore(t!.db);
    // Someone else's folder, linked where the restore stages its copy.
    const theirs = fs.mkdtempSync(path.join(t!.dir, "theirs-"));
    fs.symlinkSync(theirs, `${t!.file}.restore-pending`);
    const seen: { dir: string; dirMode: number; fileMode: number }[] = [];
    const watching: typeof store = {
      ...store,
      verifyFile: async (file) => {
        const dir = path.dirname(file);
        expect(fs.lstatSync(dir).isDirectory()).toBe(true);
        seen.push({ dir, dirMode: fs.lstatSync(dir).mode & 0o777, fileMode: fs.lstatSync(file).mode & 0o777 });
        return store.verifyFile(file);
      },
    };
    await restoreBackup({ store: watching, dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    expect(seen).toEqual([{ dir: `${t!.file}.restore-pending`, dirMode: 0o700, fileMode: 0o600 }]);
    expect(fs.readdirSync(theirs)).toEqual([]);
    expect(fs.existsSync(`${t!.file}.restore-pending`)).toBe(false);
    expect(messageCount(t!.file)).toBe(5);
  });

  it("refuses a backup failing integrity_check and changes nothing", async () => {
    const receipt = await backupThenChange();
    const file = path.join(t!.dir, "backups", receipt.name);
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096);
    fs.closeSync(fd);
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!.db), dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "backup_unusable" });
    expect(t!.sqlite.open).toBe(true);
    expect(fs.existsSync(`${t!.file}.restore-pending`)).toBe(false);
    expect(messageCount(t!.file)).toBe(3);
  });

  it("[TPR-SCH-05] refuses with maintenance_busy while a batch holds the guard", async () => {
    const receipt = await backupThenChange();
    const guard = createMaintenanceGuard();
    await guard.tryAcquire({ owner: "batch", kind: "compaction" });
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!.db), dbFile: t!.file, name: receipt.name, confirm: receipt.name, guard, quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
    await expect(attempt).rejects.toMatchObject({ code: "maintenance_busy" });
    expect(t!.sqlite.open).toBe(true);
  });

  it("refuses traversal names before checking anything else", async () => {
    await backupThenChange();
    const attempt = restoreBackup({ store: createSqliteMaintenanceStore(t!.db), dbFile: t!.file, name: "../workspace.db", confirm: "../workspace.db", guard: createMaintenanceGuard(), quiescers: createQuiescerRegistry(), closeDatabase: () => t!.sqlite.close(), log: silentLog });
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
    // Since the copy is staged in a private folder: the folder and what is in it.
    fs.mkdirSync(`${t.file}.restore-pending`, { mode: 0o700 });
    fs.writeFileSync(`${t.file}.restore-pending/workspace.db`, "partial copy");
    expect(await sweepRestorePending({ dbFile: t.file })).toBe(true);
    expect(fs.existsSync(`${t.file}.restore-pending`)).toBe(false);
    expect(await sweepRestorePending({ dbFile: t.file })).toBe(false);
    expect(messageCount(t.file)).toBe(2);
  });
});
