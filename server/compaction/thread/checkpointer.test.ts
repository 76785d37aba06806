import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { openPassStore, PASS_AUTOCHECKPOINT_PAGES, type PassStore } from "./pass-connection";

let t: TestDb | undefined;
let pass: PassStore | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await pass?.close();
  pass = undefined;
  t?.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The WAL index's frame count and how many of those frames are already copied into the database file (wal-index header and checkpoint info). */
function walIndex(file: string): { frames: number; backfilled: number } {
  const shm = fs.readFileSync(`${file}-shm`);
  return { frames: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) };
}

/** A few small commits on the pass's store (far below any automatic checkpoint threshold). */
async function commitSome(store: PassStore["store"], count: number): Promise<void> {
  for (let i = 0; i < count; i++) await store.writeTransaction((tx) => tx.writeRecordText({ text: JSON.stringify({ i, pad: "x".repeat(5000) }), nowMs: i }));
}

/** An app root whose SQLite driver throws when loaded. */
function brokenDriverRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ws-broken-driver-"));
  dirs.push(root);
  const driver = path.join(root, "node_modules", "better-sqlite3");
  fs.mkdirSync(driver, { recursive: true });
  fs.writeFileSync(path.join(root, "package.json"), "{}");
  fs.writeFileSync(path.join(driver, "package.json"), JSON.stringify({ name: "better-sqlite3", main: "index.js" }));
  fs.writeFileSync(path.join(driver, "index.js"), 'throw new Error("not a driver");');
  return root;
}

describe("the pass's checkpoints on their own thread", () => {
  it("copies every committed frame into the database file while the pass's own connection checkpoints only past its raised bound", async () => {
    t = createTestDb("ws-ckpt-");
    pass = openPassStore(t.file, { checkpointThread: { root: process.cwd() } });
    expect(pass.checkpoints()).toBe("thread");
    expect(pass.handle.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(PASS_AUTOCHECKPOINT_PAGES);
    await commitSome(pass.store, 5);
    await pass.close();
    // A commit after a complete checkpoint restarts the WAL: the frames since then.
    const wal = walIndex(t.file);
    expect(wal.frames).toBeGreaterThan(0);
    expect(wal.backfilled).toBe(wal.frames);
  });

  it("leaves the frames to SQLite's own threshold without the thread (the difference the first test sees)", async () => {
    t = createTestDb("ws-ckpt-");
    pass = openPassStore(t.file);
    expect(pass.checkpoints()).toBe("inline");
    await commitSome(pass.store, 5);
    await pass.close();
    const wal = walIndex(t.file);
    expect(wal.frames).toBeGreaterThan(5);
    expect(wal.backfilled).toBeLessThan(wal.frames);
  });

  it("goes back to inline checkpoints, and says so, when the thread fails", async () => {
    t = createTestDb("ws-ckpt-");
    const warn = vi.fn();
    pass = openPassStore(t.file, { checkpointThread: { root: brokenDriverRoot() }, log: { warn } });
    const store = pass.store;
    // The thread fails on its own time; each commit looks again.
    await vi.waitFor(async () => {
      await commitSome(store, 1);
      expect(pass!.checkpoints()).toBe("inline");
    });
    expect(warn).toHaveBeenCalledWith({}, "checkpoint thread failed: the pass checkpoints inline");
    expect(pass.handle.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    // What the thread never copied was copied by the switch.
    const wal = walIndex(t.file);
    expect(wal.backfilled).toBe(wal.frames);
    await commitSome(store, 2);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("runs the pass with inline checkpoints when the thread cannot start at all", async () => {
    t = createTestDb("ws-ckpt-");
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "ws-no-driver-"));
    dirs.push(root);
    const warn = vi.fn();
    pass = openPassStore(t.file, { checkpointThread: { root }, log: { warn } });
    expect(pass.checkpoints()).toBe("inline");
    expect(warn).toHaveBeenCalledWith({ code: "MODULE_NOT_FOUND" }, "checkpoint thread unavailable: the pass checkpoints inline");
    await commitSome(pass.store, 1);
    expect(await pass.store.readRecordText()).toContain('"i":0');
  });

  it("closes without a commit, and closing twice waits for the same exit", async () => {
    t = createTestDb("ws-ckpt-");
    pass = openPassStore(t.file, { checkpointThread: { root: process.cwd() } });
    const first = pass.close();
    const second = pass.close();
    await Promise.all([first, second]);
    expect(pass.handle.sqlite.open).toBe(false);
  });
});
