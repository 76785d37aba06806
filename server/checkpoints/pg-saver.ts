// The PostgreSQL engine's checkpoint pair: our stamping saver around
// PostgresSaver (@langchain/langgraph-checkpoint-postgres) and the store over
// the same tables, both on the runtime's one node-postgres pool (one driver,
// one set of sessions: PG_POOL_MAX bounds them all). Domain code receives
// both and never a connection.
//
// PostgresSaver.setup() creates, in the database's public schema:
// checkpoint_migrations (its own version bookkeeping), checkpoints
// (checkpoint and metadata as jsonb), checkpoint_blobs (channel values by
// channel and version) and checkpoint_writes. It runs once per process at
// open, under the same advisory lock our migrations take, so instances
// starting together do not race on CREATE TABLE.
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import type { PgDb } from "@/server/db/pg/pg-db";
import { MIGRATION_LOCK_KEY } from "@/server/db/pg/migrate";
import type { ChannelMode } from "./mode";
import { createPgCheckpointStore } from "./pg-store";
import { StampingSaver } from "./stamping-saver";
import type { CheckpointStore } from "./store";

/**
 * Runs the saver's setup on one session of `pool` that first takes the
 * migration advisory lock (session level). A PostgresSaver
 * over that one session runs the setup, so lock and DDL share the session.
 */
export async function setupUnderMigrationLock(pool: pg.Pool): Promise<void> {
  const session = await pool.connect();
  try {
    await session.query(`select pg_advisory_lock($1)`, [MIGRATION_LOCK_KEY]);
    try {
      // setup() uses only connect(), query() and release().
      const single = { connect: async () => ({ query: (text: string, values?: unknown[]) => session.query(text, values), release: () => undefined }) };
      await new PostgresSaver(single as unknown as pg.Pool).setup();
    } finally {
      await session.query(`select pg_advisory_unlock($1)`, [MIGRATION_LOCK_KEY]);
    }
  } finally {
    session.release();
  }
}

/** The process's PostgresSaver on the runtime's pool, and its tables' setup started at runtime open. */
export type PgSaverHandle = {
  inner: PostgresSaver;
  /** Settles when the saver's tables exist; after a failed setup the next call tries again. */
  ready(): Promise<void>;
};

/** PostgresSaver on `pool` (the runtime's: PgDb.pool); starts its setup (async; saver calls await `ready()`). */
export function startPgSaver(options: { pool: pg.Pool }): PgSaverHandle {
  const { pool } = options;
  const inner = new PostgresSaver(pool);
  let failed = false;
  const start = (): Promise<void> => {
    failed = false;
    const setup = setupUnderMigrationLock(pool);
    // Callers await it; a failure is remembered (the next call retries), never unhandled.
    setup.catch(() => {
      failed = true;
    });
    return setup;
  };
  let current = start();
  return {
    inner,
    ready() {
      if (failed) current = start();
      return current;
    },
  };
}

/**
 * Our stamping saver (in the process mode) around the shared PostgresSaver,
 * and the store on `db` (the pool the saver runs on). Every saver call first
 * awaits the tables' setup that startPgSaver started.
 */
export function openPgCheckpoints(options: { handle: PgSaverHandle; db: PgDb; mode: ChannelMode }): { saver: StampingSaver; store: CheckpointStore } {
  const store = createPgCheckpointStore(options.db);
  const { handle } = options;
  const saver = new StampingSaver({ inner: handle.inner, setup: () => undefined, ready: () => handle.ready(), uniqueVersions: true, store, mode: options.mode });
  return { saver, store };
}
