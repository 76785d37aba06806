import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestDb } from "@/server/db/test-db";
import { seededDb } from "../test-support/fixtures";
import { listBackups } from "./catalog";
import { sweepStaleStaging } from "./create";
import { createMaintenanceGuard } from "../guard";

let t: TestDb | undefined;
afterEach(() => t?.close());

/** Runs the backup in a separate process and SIGKILLs it once the snapshot is staged. */
function killMidBackup(dbFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
    const child = spawn(tsx, ["--conditions=react-server", "server/maintenance/test-support/backup-child.ts", dbFile], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /staged (.+)\n/.exec(out);
      if (match) {
        child.kill("SIGKILL");
        child.once("exit", () => resolve(match[1] ?? ""));
      }
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`child exited early (${code})`));
    });
  });
}

describe("backup crash safety", () => {
  it("[TPR-PREP-10] a process killed mid-backup publishes nothing; the next start sweeps its staging", async () => {
    t = seededDb(20, 500);
    t.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const stagingFile = await killMidBackup(t.file);
    // The snapshot exists only inside the private staging directory.
    expect(fs.existsSync(stagingFile)).toBe(true);
    expect(path.basename(path.dirname(stagingFile)).startsWith(".staging-")).toBe(true);
    expect(await listBackups({ dbFile: t.file })).toEqual([]);
    expect(fs.readdirSync(path.join(t.dir, "backups")).filter((name) => !name.startsWith(".staging-"))).toEqual([]);
    // "Restart": the start-up sweep removes the leftover.
    expect(await sweepStaleStaging({ dbFile: t.file, guard: createMaintenanceGuard() })).toBe(1);
    expect(fs.readdirSync(path.join(t.dir, "backups"))).toEqual([]);
  });
});
