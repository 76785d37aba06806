// Test helpers for checkpoint code: a real temp SQLite file, a saver and an
// accessor for a given mode, and a deterministic id generator.
import Database from "better-sqlite3";
import { afterEach, beforeEach } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { wrapSqliteDb, type SqliteDb } from "@/server/db/sqlite-db";
import { createCheckpointAccessor, type CheckpointAccessor } from "./accessor";
import type { ModeConfig } from "./mode";
import { openSqliteCheckpoints } from "./sqlite-saver";
import type { StampingSaver } from "./stamping-saver";
import type { CheckpointStore } from "./store";
import { manualClock, type Clock } from "@/server/clock";
import { createThreadLocks } from "./thread-lock";
import type { RunDeps } from "./runs";

export const FULL: ModeConfig = { mode: "full", snapshotFrequency: 10 };
export const DELTA: ModeConfig = { mode: "delta", snapshotFrequency: 3 };

export function sequentialIds(prefix = "id"): () => string {
  let n = 0;
  return () => `${prefix}-${String(++n).padStart(4, "0")}`;
}

export type OpenedCheckpoints = {
  saver: StampingSaver;
  store: CheckpointStore;
  /** The writer connection, for tests that reshape rows by hand (autocommit). */
  sqlite: Database.Database;
  /** The same file behind the asynchronous boundary (writer queue on `sqlite`, its own read connection). */
  db: SqliteDb;
  accessor: CheckpointAccessor;
  close(): void;
};

export type CheckpointTestEnv = {
  db: TestDb;
  /** Opens a saver + accessor on the same file (a fresh connection: a "reload"). */
  open(config: ModeConfig): OpenedCheckpoints;
  close(): void;
};

export function createCheckpointTestEnv(): CheckpointTestEnv {
  const db = createTestDb("ckpt-test-");
  const extra: SqliteDb[] = [];
  return {
    db,
    open(config) {
      const sqlite = new Database(db.file);
      sqlite.pragma("busy_timeout = 5000");
      const opened = wrapSqliteDb({ sqlite, file: db.file }, { busyTimeoutMs: 5000 });
      extra.push(opened);
      const { saver, store } = openSqliteCheckpoints({ db: opened, mode: config.mode });
      return { saver, store, sqlite, db: opened, accessor: createCheckpointAccessor({ saver, config }), close: () => opened.closeNow() };
    },
    close() {
      for (const s of extra) s.closeNow();
      db.close();
    },
  };
}


/** A fresh test environment for each test of the calling file (closed after it). */
export function checkpointTestEnvPerTest(): CheckpointTestEnv {
  let current: CheckpointTestEnv | null = null;
  beforeEach(() => {
    current = createCheckpointTestEnv();
  });
  afterEach(() => current?.close());
  return {
    get db() {
      return current!.db;
    },
    open: (config) => current!.open(config),
    close: () => current?.close(),
  };
}


/** A clock that advances 5 ms per reading; tests move it further by hand. */
export type SteppingClock = Clock & { advance(ms: number): void };

/** Run deps with a manual clock that advances 5 ms per reading (`advanceClock` jumps it). */
export function testRunDeps(accessor: CheckpointAccessor, newId: () => string, toolPayloadBytes = 32): RunDeps {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const stepping: SteppingClock = {
    now: () => {
      clock.advance(5);
      return clock.now();
    },
    advance: (ms) => clock.advance(ms),
  };
  return { accessor, newId, locks: createThreadLocks(), toolPayloadBytes, clock: stepping };
}

/** Moves the clock of deps made by testRunDeps forward. */
export function advanceClock(deps: RunDeps, ms: number): void {
  const clock = deps.clock as Partial<SteppingClock>;
  if (typeof clock.advance !== "function") throw new Error("these run deps do not have a test clock");
  clock.advance(ms);
}

export function countRows(sqlite: Database.Database, threadId?: string): { checkpoints: number; writes: number } {
  const where = threadId ? " where thread_id = ?" : "";
  const args = threadId ? [threadId] : [];
  const c = sqlite.prepare(`select count(*) n from checkpoints${where}`).get(...args) as { n: number };
  const w = sqlite.prepare(`select count(*) n from writes${where}`).get(...args) as { n: number };
  return { checkpoints: c.n, writes: w.n };
}

