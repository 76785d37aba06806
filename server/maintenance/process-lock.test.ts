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
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "process-lock-"));
    file = processLockFileFor(path.join(dir, "workspace.db"));
  });
  afterEach(async () => fs.rmSync(dir, { recursive: true, force: true }));

  it("[TPR-SCH-05] a lease of one guard makes the other defer or refuse until it is released", async () => {
    const server = createMaintenanceGuard({ processLock: createProcessLock({ file }) });
    const cli = createMaintenanceGuard({ processLock: createProcessLock({ file }) });
    const backup = await cli.acquireExclusive({ owner: "cli-backup", kind: "backup" });
    expect(await server.tryAcquire({ owner: "batch", kind: "compaction" })).toBeNull();
    expect(await server.holder()).toMatchObject({ owner: "cli-backup", kind: "backup" });
    let refused: unknown = null;
    try {
      await server.acquireExclusive({ owner: "vacuum", kind: "vacuum" });
    } catch (error) {
      refused = error;
    }
    expect(isAppError(refused) && refused.code).toBe("maintenance_busy");
    backup.release();
    expect(fs.existsSync(file)).toBe(false);
    await server.withExclusive({ owner: "vacuum", kind: "vacuum" }, async () => {
      expect(await cli.tryAcquire({ owner: "batch", kind: "compaction" })).toBeNull();
    });
    expect((await cli.tryAcquire({ owner: "batch", kind: "compaction" }))?.held()).toBe(true);
  });

  it("a lock left by a process that died is taken over; a late release of someone else's lock is a no-op", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    fs.writeFileSync(file, JSON.stringify({ id: "old", owner: "crashed", kind: "backup", pid: dead, token: "t", host: os.hostname(), acquiredAt: "2026-01-01T00:00:00Z" }));
    const lock = createProcessLock({ file });
    expect(await lock.holder()).toBeNull();
    expect(await lock.tryTake({ id: "new", owner: "cli", kind: "compaction" })).toBe(true);
    lock.release("old");
    expect(await lock.holder()).toMatchObject({ id: "new", pid: process.pid });
    lock.release("new");
    expect(fs.existsSync(file)).toBe(false);
  });

  it("a reused pid is not the holder: this pid in another incarnation, or a live process that started after the lock was taken", async () => {
    const holder = (pid: number, token: string, acquiredAt: string) => JSON.stringify({ id: "old", owner: "crashed", kind: "backup", pid, token, host: os.hostname(), acquiredAt });
    const lock = createProcessLock({ file });
    // A restarted server got the pid of the process that died holding the lock.
    fs.writeFileSync(file, holder(process.pid, "previous-incarnation", new Date().toISOString()));
    expect(await lock.tryTake({ id: "mine", owner: "server", kind: "compaction" })).toBe(true);
    lock.release("mine");

    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      fs.writeFileSync(file, holder(child.pid!, "t", "2020-01-01T00:00:00Z"));
      expect(await lock.holder()).toBeNull();
      fs.writeFileSync(file, holder(child.pid!, "t", new Date(Date.now() + 60_000).toISOString()));
      expect(await lock.holder()).toMatchObject({ pid: child.pid });
      expect(await lock.tryTake({ id: "mine", owner: "server", kind: "compaction" })).toBe(false);
    } finally {
      child.kill();
    }
  });

  it("a holder on another host is never judged stale from here", async () => {
    fs.writeFileSync(file, JSON.stringify({ id: "far", owner: "server", kind: "vacuum", pid: 1, token: "t", host: `${os.hostname()}-elsewhere`, acquiredAt: "2026-01-01T00:00:00Z" }));
    const lock = createProcessLock({ file });
    expect(await lock.tryTake({ id: "mine", owner: "cli", kind: "compaction" })).toBe(false);
    expect(await lock.holder()).toMatchObject({ id: "far", owner: "server" });
  });

  it("[#26-7] another host's lock is reported as unverifiable and cleared only while it is still that holder", async () => {
    const far = { id: "far", owner: "server", kind: "vacuum", pid: 1, token: "t", host: `${os.hostname()}-elsewhere`, acquiredAt: "2026-01-01T00:00:00Z" };
    fs.writeFileSync(file, JSON.stringify(far));
    const lock = createProcessLock({ file });
    expect(await lock.unverifiable!()).toEqual({ id: "far", kind: "vacuum", host: far.host, acquiredAt: "2026-01-01T00:00:00.000Z" });
    // Replaced by another holder after it was shown: the new one is kept.
    fs.writeFileSync(file, JSON.stringify({ ...far, id: "newer" }));
    expect(await lock.clearUnverifiable!("far")).toBe(false);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).id).toBe("newer");
    expect(await lock.clearUnverifiable!("newer")).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    expect(await lock.unverifiable!()).toBeNull();
    // Then maintenance runs again, and the lock it takes is this host's: never offered for clearing.
    expect(await lock.tryTake({ id: "mine", owner: "cli", kind: "compaction" })).toBe(true);
    expect(await lock.unverifiable!()).toBeNull();
    expect(await lock.clearUnverifiable!("mine")).toBe(false);
    expect(fs.existsSync(file)).toBe(true);
    lock.release("mine");
  });
});
