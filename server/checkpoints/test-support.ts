// Test helpers for checkpoint code: a real temp SQLite file, a saver and an
// accessor for a given mode, and a deterministic id generator.
import Database from "better-sqlite3";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createCheckpointAccessor, type CheckpointAccessor } from "./accessor";
import type { ModeConfig } from "./mode";
import { StampingSqliteSaver } from "./stamping-saver";
import { manualClock } from "@/server/clock";
import { createThreadLocks } from "./thread-lock";
import type { RunDeps } from "./runs";

export function sequentialIds(prefix = "id"): () => string {
  let n = 0;
  return () => `${prefix}-${String(++n).padStart(4, "0")}`;
}

export type CheckpointTestEnv = {
  db: TestDb;
  /** Opens a saver + accessor on the same file (a fresh connection: a "reload"). */
  open(config: ModeConfig): { saver: StampingSqliteSaver; accessor: CheckpointAccessor; close(): void };
  close(): void;
};

export function createCheckpointTestEnv(): CheckpointTestEnv {
  const db = createTestDb("ckpt-test-");
  const extra: Database.Database[] = [];
  return {
    db,
    open(config) {
      const sqlite = new Database(db.file);
      sqlite.pragma("busy_timeout = 5000");
      extra.push(sqlite);
      const saver = new StampingSqliteSaver({ sqlite, mode: config.mode });
      saver.setup();
      return { saver, accessor: createCheckpointAccessor({ saver, config }), close: () => sqlite.close() };
    },
    close() {
      for (const s of extra) if (s.open) s.close();
      db.close();
    },
  };
}


/** Run deps with a manual clock that advances 5 ms per reading. */
export function testRunDeps(accessor: CheckpointAccessor, newId: () => string, toolPayloadBytes = 32): RunDeps {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  return {
    accessor,
    newId,
    locks: createThreadLocks(),
    toolPayloadBytes,
    clock: {
      now: () => {
        clock.advance(5);
        return clock.now();
      },
    },
  };
}

export function countRows(sqlite: Database.Database, threadId?: string): { checkpoints: number; writes: number } {
  const where = threadId ? " where thread_id = ?" : "";
  const args = threadId ? [threadId] : [];
  const c = sqlite.prepare(`select count(*) n from checkpoints${where}`).get(...args) as { n: number };
  const w = sqlite.prepare(`select count(*) n from writes${where}`).get(...args) as { n: number };
  return { checkpoints: c.n, writes: w.n };
}
