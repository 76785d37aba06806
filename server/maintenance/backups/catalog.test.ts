import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { createMaintenanceGuard } from "../guard";
import { seededDb, silentLog, testClock } from "../test-support/fixtures";
import { deleteBackup, listBackups, openBackupStream } from "./catalog";
import { createBackup } from "./create";
import { backupPath } from "./names";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

let t: TestDb | undefined;
afterEach(async () => t?.close());

const HOSTILE_NAMES = [
  "../workspace.db",
  "../../etc/passwd",
  "/etc/passwd",
  "%2e%2e%2fworkspace.db",
  "..%2Fworkspace.db",
  "workspace-2026-11-29T22-30-00Z-1a2b3c4d.db/../../workspace.db",
  "workspace-2026-11-29T22-30-00Z-1a2b3c4d.db\u0000",
  ".staging-abc",
  "",
];

async function oneBackup() {
  t = seededDb(3, 100);
  return createBackup({ store: createSqliteMaintenanceStore(t.db), dbFile: t.file, clock: testClock(), label: "manual", guard: createMaintenanceGuard(), log: silentLog });
}

describe("backup catalog", () => {
  it("lists published backups newest first, without staging dirs, symlinks or strays", async () => {
    const receipt = await oneBackup();
    const dir = path.join(t!.dir, "backups");
    fs.mkdirSync(path.join(dir, ".staging-x"));
    fs.writeFileSync(path.join(dir, "notes.txt"), "x");
    fs.symlinkSync(t!.file, path.join(dir, "workspace-2027-01-01T00-00-00Z-00000000.db"));
    expect(await listBackups({ dbFile: t!.file })).toEqual([
      { name: receipt.name, sizeBytes: receipt.sizeBytes, createdAt: "2026-11-29T22:30:00.000Z" },
    ]);
  });

  it("downloads a backup byte for byte", async () => {
    const receipt = await oneBackup();
    const download = await openBackupStream({ dbFile: t!.file, name: receipt.name });
    const bytes = Buffer.from(await new Response(download.stream).arrayBuffer());
    expect(download.sizeBytes).toBe(receipt.sizeBytes);
    expect(bytes.equals(fs.readFileSync(path.join(t!.dir, "backups", receipt.name)))).toBe(true);
  });

  it.each(HOSTILE_NAMES)("refuses path traversal and foreign names: %j", async (name) => {
    await oneBackup();
    expect(() => backupPath(t!.file, name)).toThrow(expect.objectContaining({ code: "invalid_request" }));
    await expect(openBackupStream({ dbFile: t!.file, name })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(deleteBackup({ dbFile: t!.file, name, guard: createMaintenanceGuard() })).rejects.toMatchObject({ code: "invalid_request" });
    expect(fs.existsSync(t!.file)).toBe(true);
  });

  it("answers not_found for a well-formed name that does not exist or is a symlink", async () => {
    await oneBackup();
    const ghost = "workspace-2027-01-01T00-00-00Z-00000000.db";
    await expect(openBackupStream({ dbFile: t!.file, name: ghost })).rejects.toMatchObject({ code: "not_found" });
    fs.symlinkSync(t!.file, path.join(t!.dir, "backups", ghost));
    await expect(openBackupStream({ dbFile: t!.file, name: ghost })).rejects.toMatchObject({ code: "not_found" });
    await expect(deleteBackup({ dbFile: t!.file, name: ghost, guard: createMaintenanceGuard() })).rejects.toMatchObject({ code: "not_found" });
    expect(fs.lstatSync(path.join(t!.dir, "backups", ghost)).isSymbolicLink()).toBe(true);
  });

  it("deletes a backup, and refuses while the maintenance guard is held", async () => {
    const receipt = await oneBackup();
    const guard = createMaintenanceGuard();
    const lease = await guard.acquireExclusive({ owner: "vac", kind: "vacuum" });
    await expect(deleteBackup({ dbFile: t!.file, name: receipt.name, guard })).rejects.toMatchObject({ code: "maintenance_busy" });
    lease.release();
    await deleteBackup({ dbFile: t!.file, name: receipt.name, guard });
    expect(await listBackups({ dbFile: t!.file })).toEqual([]);
  });
});
