// Test helper: a runtime of its own per test, on a temp SQLite file with the
// migrations applied. Nothing is shared with other tests or the process.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SqliteDb } from "./db/sqlite-db";
import { createEmptyPgDatabase } from "./db/pg/test-db";
import { createLogger } from "./log";
import { createMigratedRuntime, createRuntime, installProcessRuntime, openRuntime, uninstallProcessRuntime, type OpenRuntime, type RuntimeOptions } from "./runtime";

export type TestRuntime = OpenRuntime & {
  /** SQLite test runtimes always have their file open. */
  handle: SqliteDb;
  dir: string;
  /** Stops the runtime, takes it out of the process slot if installed, removes the files. */
  dispose(): Promise<void>;
};

export type TestRuntimeOptions = Omit<RuntimeOptions, "env"> & {
  prefix?: string;
  /** Starts background work (the compaction worker) as the server does at boot. */
  start?: boolean;
  /** Makes it the process runtime, the one route handlers receive. */
  install?: boolean;
  /** Extra environment (DATABASE_URL is the temp file's). */
  env?: Record<string, string | undefined>;
};

/**
 * Test runtimes have no idle timeout unless a test sets SESSION_IDLE_MINUTES:
 * their hand-made sessions stand for users at work, and many tests move the
 * clock by days. The idle timeout's own suites set it. Nor do they pause a
 * throttled sign-in's answer (SIGN_IN_REFUSAL_PAUSE_MS, real timers): the
 * pace's own suite sets it.
 */
const NO_IDLE_TIMEOUT = { SESSION_IDLE_MINUTES: "0", SIGN_IN_REFUSAL_PAUSE_MS: "0" };

export function createTestRuntime(options: TestRuntimeOptions = {}): TestRuntime {
  const { prefix = "runtime-", start = false, install = false, env = {}, ...rest } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const rt = openRuntime(
    createRuntime({
      log: createLogger({ level: "silent" }),
      ...rest,
      env: { ...NO_IDLE_TIMEOUT, ...env, DATABASE_URL: `file:${path.join(dir, "workspace.db")}` },
    }),
  );
  if (!rt || !rt.handle) throw new Error("a test runtime is always SQLite");
  if (install) installProcessRuntime(rt);
  if (start) rt.start();
  return Object.assign(rt as OpenRuntime & { handle: SqliteDb }, {
    dir,
    async dispose() {
      uninstallProcessRuntime(rt);
      await rt.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}

/**
 * Installs a runtime whose DATABASE_URL names an unsupported engine (no
 * connection is ever attempted) in place of the current one; returns the
 * function that puts the previous one back.
 */
export function installUnsupportedRuntime(url: string, previous?: OpenRuntime): () => void {
  // A PostgreSQL URL stands for a server that could not be reached at start (no database opened).
  const rt = createRuntime({ env: { DATABASE_URL: url }, log: createLogger({ level: "silent" }), postgres: null });
  installProcessRuntime(rt);
  return () => {
    uninstallProcessRuntime(rt);
    if (previous) installProcessRuntime(previous);
  };
}

/** A test runtime on either engine: SQLite (`handle` set) or PostgreSQL (`pg` set, a fresh database dropped on dispose). */
export type EngineTestRuntime = OpenRuntime & { dir: string; dispose(): Promise<void> };

/**
 * A runtime of its own on a fresh PostgreSQL database of the TEST_POSTGRES_URL
 * server (migrated by the runtime itself, as at boot); backups go under a
 * temp DATA_DIR. Dispose stops it and drops the database.
 */
export async function createPgTestRuntime(options: TestRuntimeOptions = {}): Promise<EngineTestRuntime> {
  const { prefix = "runtime-pg-", start = false, install = false, env = {}, ...rest } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const db = await createEmptyPgDatabase();
  const rt = openRuntime(
    await createMigratedRuntime({
      log: createLogger({ level: "silent" }),
      ...rest,
      env: { ...NO_IDLE_TIMEOUT, ...env, DATABASE_URL: db.url, DATA_DIR: dir },
    }),
  );
  if (!rt?.postgres) {
    await db.drop();
    throw new Error("the PostgreSQL test runtime did not open its database");
  }
  if (install) installProcessRuntime(rt);
  if (start) {
    rt.start();
    await workerRunning(rt);
  }
  return Object.assign(rt, {
    dir,
    async dispose() {
      uninstallProcessRuntime(rt);
      await rt.stop();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}

/**
 * Started on PostgreSQL, the worker runs once the lease's first try answers
 * (a session to open, slow under load); on SQLite it runs at start. A test
 * of a started runtime expects it running, as after boot.
 */
async function workerRunning(rt: OpenRuntime, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!rt.compaction.isRunning()) {
    if (Date.now() > deadline) throw new Error("the PostgreSQL test runtime's worker did not start (worker lease)");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A test runtime on `engine` (PostgreSQL needs TEST_POSTGRES_URL). */
export async function createEngineTestRuntime(engine: "sqlite" | "postgres", options: TestRuntimeOptions = {}): Promise<EngineTestRuntime> {
  return engine === "postgres" ? createPgTestRuntime(options) : createTestRuntime(options);
}
