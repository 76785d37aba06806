// The attack: another local user reads the live database (password hashes,
// every payload) because it was created 0644 under the default umask. Each
// test runs under a permissive umask (0000) so only our own modes protect it.
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "@/server/log";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import { createBackup } from "@/server/maintenance/backups/create";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { startMaintenance } from "@/server/maintenance/startup";
import { manualClock } from "@/server/clock";
import { openDatabase } from "./client";

let dir: string;
let previousUmask: number;
beforeEach(() => {
  previousUmask = process.umask(0o000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "file-modes-"));
});
afterEach(() => {
  process.umask(previousUmask);
  fs.rmSync(dir, { recursive: true, force: true });
});

function mode(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8).padStart(4, "0");
}

function capturingLog() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ level: "info", destination }), lines };
}

describe("database file modes under umask 0000", () => {
  it("[finding 5] creates the folder 0700 and the database, WAL and SHM 0600", () => {
    const file = path.join(dir, "data", "workspace.db");
    const { sqlite } = openDatabase({ file });
    sqlite.exec("create table probe (x integer)");
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    expect(fs.existsSync(`${file}-shm`)).toBe(true);
    expect([mode(path.dirname(file)), mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual(["0700", "0600", "0600", "0600"]);
    sqlite.close();
  });

  it("[finding 5] tightens an existing world-readable database, WAL and SHM on open and logs it", () => {
    const file = path.join(dir, "workspace.db");
    const first = openDatabase({ file });
    first.sqlite.exec("create table probe (x integer)");
    // Left open: the WAL and SHM stay on disk, as after a crash or a copy by another tool.
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.chmodSync(f, 0o644);
    const { log, lines } = capturingLog();
    const second = openDatabase({ file, log });
    expect([mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual(["0600", "0600", "0600"]);
    const line = lines.find((l) => l.msg === "tightened database file modes");
    expect(line?.files).toEqual(["workspace.db", "workspace.db-wal", "workspace.db-shm"]);
    second.sqlite.close();
    first.sqlite.close();
  });

  it("leaves an existing folder and already private files alone, and logs nothing", () => {
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, "workspace.db");
    openDatabase({ file }).sqlite.close();
    const { log, lines } = capturingLog();
    openDatabase({ file, log }).sqlite.close();
    expect(mode(dir)).toBe("0755");
    expect(lines.filter((l) => String(l.msg).includes("tightened"))).toEqual([]);
  });
});

describe("backup file modes under umask 0000", () => {
  it("[finding 5] publishes a backup 0600 in a 0700 folder, even when the folder existed world-readable", async () => {
    const file = path.join(dir, "workspace.db");
    const handle = openDatabase({ file });
    fs.mkdirSync(path.join(dir, "backups"), { mode: 0o755 });
    const receipt = await createBackup({
      store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })),
      dbFile: file,
      clock: manualClock(Date.UTC(2026, 0, 1)),
      label: "manual",
      guard: createMaintenanceGuard(),
      log: createLogger({ level: "silent" }),
    });
    expect(mode(path.join(dir, "backups"))).toBe("0700");
    expect(mode(path.join(dir, "backups", receipt.name))).toBe("0600");
    handle.sqlite.close();
  });

  it("[finding 5] startup tightens an existing readable backups folder and its files and logs it", () => {
    const file = path.join(dir, "workspace.db");
    const backups = path.join(dir, "backups");
    fs.mkdirSync(backups, { mode: 0o755 });
    fs.writeFileSync(path.join(backups, "old.db"), "x", { mode: 0o644 });
    fs.writeFileSync(path.join(backups, "private.db"), "x", { mode: 0o600 });
    const { log, lines } = capturingLog();
    startMaintenance({ dbFile: file, guard: createMaintenanceGuard(), log });
    expect([mode(backups), mode(path.join(backups, "old.db")), mode(path.join(backups, "private.db"))]).toEqual(["0700", "0600", "0600"]);
    expect(lines.find((l) => l.msg === "tightened backup file modes to 0600/0700")?.files).toEqual(["backups", "backups/old.db"]);
  });
});
