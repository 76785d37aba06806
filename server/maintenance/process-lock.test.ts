import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAppError } from "@/server/errors";
import { createMaintenanceGuard } from "./guard";
import { createProcessLock, processLockFileFor } from "./process-lock";

// Two guards on one lock file stand for two processes (the server and the
// CLI); the real two-process case runs in server/cli/cli.test.ts.
describe("maintenance guard across processes (lock file)", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "process-lock-"));
    file = processLockFileFor(path.join(dir, "workspace.db"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("[TPR-SCH-05] a lease of one guard makes the other defer or refuse until it is released", async () => {
    const server = createMaintenanceGuard({ processLock: createProcessLock({ file }) });
    const cli = createMaintenanceGuard({ processLock: createProcessLock({ file }) });
    const backup = cli.acquireExclusive({ owner: "cli-backup", kind: "backup" });
    expect(server.tryAcquire({ owner: "batch", kind: "compaction" })).toBeNull();
    expect(server.holder()).toMatchObject({ owner: "cli-backup", kind: "backup" });
    let refused: unknown = null;
    try {
      server.acquireExclusive({ owner: "vacuum", kind: "vacuum" });
    } catch (error) {
      refused = error;
    }
    expect(isAppError(refused) && refused.code).toBe("maintenance_busy");
    backup.release();
    expect(fs.existsSync(file)).toBe(false);
    await server.withExclusive({ owner: "vacuum", kind: "vacuum" }, () => {
      expect(cli.tryAcquire({ owner: "batch", kind: "compaction" })).toBeNull();
    });
    expect(cli.tryAcquire({ owner: "batch", kind: "compaction" })?.held()).toBe(true);
  });

  it("a lock left by a process that died is taken over; a late release of someone else's lock is a no-op", () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    fs.writeFileSync(file, JSON.stringify({ id: "old", owner: "crashed", kind: "backup", pid: dead, token: "t", host: os.hostname(), acquiredAt: "2026-01-01T00:00:00Z" }));
    const lock = createProcessLock({ file });
    expect(lock.holder()).toBeNull();
    expect(lock.tryTake({ id: "new", owner: "cli", kind: "compaction" })).toBe(true);
    lock.release("old");
    expect(lock.holder()).toMatchObject({ id: "new", pid: process.pid });
    lock.release("new");
    expect(fs.existsSync(file)).toBe(false);
  });

  it("a reused pid is not the holder: this pid in another incarnation, or a live process that started after the lock was taken", async () => {
    const holder = (pid: number, token: string, acquiredAt: string) => JSON.stringify({ id: "old", owner: "crashed", kind: "backup", pid, token, host: os.hostname(), acquiredAt });
    const lock = createProcessLock({ file });
    // A restarted server got the pid of the process that died holding the lock.
    fs.writeFileSync(file, holder(process.pid, "previous-incarnation", new Date().toISOString()));
    expect(lock.tryTake({ id: "mine", owner: "server", kind: "compaction" })).toBe(true);
    lock.release("mine");

    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      fs.writeFileSync(file, holder(child.pid!, "t", "2020-01-01T00:00:00Z"));
      expect(lock.holder()).toBeNull();
      fs.writeFileSync(file, holder(child.pid!, "t", new Date(Date.now() + 60_000).toISOString()));
      expect(lock.holder()).toMatchObject({ pid: child.pid });
      expect(lock.tryTake({ id: "mine", owner: "server", kind: "compaction" })).toBe(false);
    } finally {
      child.kill();
    }
  });

  it("a holder on another host is never judged stale from here", () => {
    fs.writeFileSync(file, JSON.stringify({ id: "far", owner: "server", kind: "vacuum", pid: 1, token: "t", host: `${os.hostname()}-elsewhere`, acquiredAt: "2026-01-01T00:00:00Z" }));
    const lock = createProcessLock({ file });
    expect(lock.tryTake({ id: "mine", owner: "cli", kind: "compaction" })).toBe(false);
    expect(lock.holder()).toMatchObject({ id: "far", owner: "server" });
  });
});
