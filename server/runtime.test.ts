import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manualClock } from "./clock";
import { createLogger } from "./log";
import { createMigratedRuntime, openRuntime, processRuntime, uninstallProcessRuntime, type Runtime } from "./runtime";
import { createTestRuntime, type TestRuntime } from "./runtime-test-support";
import { requireProcessRuntime, startServerProcess } from "./startup";
import { createEmptyPgDatabase, TEST_POSTGRES_URL } from "./db/pg/test-db";

const DAY_MS = 24 * 60 * 60 * 1000;

const silent = createLogger({ level: "silent" });
let rt: TestRuntime | null = null;
const extra: Runtime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await rt?.dispose();
  rt = null;
  for (const other of extra.splice(0)) {
    uninstallProcessRuntime(other);
    await other.stop();
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("runtime", () => {
  it("creating builds every service on an open database but starts no background work", () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    rt = createTestRuntime({ clock });
    expect(rt.handle.sqlite.open).toBe(true);
    expect(rt.clock).toBe(clock);
    expect(rt.compaction.isRunning()).toBe(false);
    expect(rt.checkpoints.schedule.isRunning()).toBe(false);
    expect(rt.quiescers.names()).toEqual(["event-streams", "checkpoint-schedule", "compaction-worker"]);
  });

  it("start is idempotent; stop stops the worker, closes the database and cannot be restarted", async () => {
    rt = createTestRuntime();
    rt.start();
    rt.start();
    expect(rt.compaction.isRunning()).toBe(true);
    expect(rt.checkpoints.schedule.isRunning()).toBe(true);
    const { sqlite } = rt.handle;
    await rt.stop();
    expect(rt.compaction.isRunning()).toBe(false);
    expect(sqlite.open).toBe(false);
    rt.start();
    expect(rt.compaction.isRunning()).toBe(false);
  });

  it("[TPR-SCH-06] quiescing stops the worker; resuming reopens the connection and starts a fresh worker", async () => {
    rt = createTestRuntime({ start: true });
    const before = { handle: rt.handle, worker: rt.compaction };
    const resume = await rt.quiescers.quiesceAll();
    expect(before.worker.isRunning()).toBe(false);
    before.handle.sqlite.close();
    resume();
    expect(rt.handle).not.toBe(before.handle);
    expect(rt.handle.sqlite.open).toBe(true);
    expect(rt.compaction).not.toBe(before.worker);
    expect(rt.compaction.isRunning()).toBe(true);
  });

  it("an unsupported engine opens nothing and builds no worker", async () => {
    const unsupported = await createMigratedRuntime({ env: { DATABASE_URL: "postgres://user:secret@127.0.0.1:1/db" }, log: silent });
    extra.push(unsupported);
    expect(unsupported.handle).toBeNull();
    expect(unsupported.compaction).toBeNull();
    expect(openRuntime(unsupported)).toBeNull();
    unsupported.start();
    await unsupported.stop();
  });
});

describe("startServerProcess", () => {
  it("creates, installs and starts the process runtime once; later calls find the same one", async () => {
    expect(processRuntime()).toBeUndefined();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-"));
    dirs.push(dir);
    const env = { NODE_ENV: "test" as const, DATABASE_URL: `file:${path.join(dir, "workspace.db")}`, LOG_LEVEL: "silent" };
    const first = await startServerProcess(env);
    expect(first).not.toBeNull();
    extra.push(first!);
    expect(processRuntime()).toBe(first);
    expect(await startServerProcess(env)).toBe(first);
    expect(await requireProcessRuntime()).toBe(first);
    expect(openRuntime(first!)?.compaction.isRunning()).toBe(true);
  });

  it.skipIf(!TEST_POSTGRES_URL)("on PostgreSQL the startup prunes audit entries older than AUDIT_RETENTION_DAYS, as on SQLite", async () => {
    const db = await createEmptyPgDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-pg-"));
    dirs.push(dir);
    try {
      const env = { NODE_ENV: "test" as const, DATABASE_URL: db.url, DATA_DIR: dir, LOG_LEVEL: "silent", AUDIT_RETENTION_DAYS: "30" };
      const seeding = openRuntime(await createMigratedRuntime({ env, log: silent }))!;
      const now = Date.now();
      for (const atMs of [now - 31 * DAY_MS, now - DAY_MS]) {
        await seeding.stores.audit.insert({ atMs, actor: "cli", kind: "backup.created", result: "ok", errorCode: null, detail: "{}" });
      }
      await seeding.stop();
      const started = openRuntime((await startServerProcess(env))!)!;
      extra.push(started);
      const left = await started.stores.audit.list({ beforeSeq: null, kind: null, limit: 10 });
      expect(left.map((entry) => entry.atMs)).toEqual([now - DAY_MS]);
    } finally {
      for (const other of extra.splice(0)) {
        uninstallProcessRuntime(other);
        await other.stop();
      }
      await db.drop();
    }
  });

  it("a runtime that cannot be created is logged and not installed; the next call tries again", async () => {
    expect(await startServerProcess({ NODE_ENV: "test", DATABASE_URL: "mysql://nope", LOG_LEVEL: "silent" })).toBeNull();
    expect(processRuntime()).toBeUndefined();
  });
});
