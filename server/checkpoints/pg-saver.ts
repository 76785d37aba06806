// The PostgreSQL engine's checkpoint pair: our stamping saver around
// PostgresSaver (@langchain/langgraph-checkpoint-postgres, async over its own
// `pg` Pool) and the synchronous store over the same tables on the runtime's
// libpq connection. Domain code receives both and never a connection.
//
// PostgresSaver.setup() creates, in the database's public schema:
// checkpoint_migrations (its own version bookkeeping), checkpoints
// (checkpoint and metadata as jsonb), checkpoint_blobs (channel values by
// channel and version) and checkpoint_writes. It runs once per process at
// open, under the same advisory lock our migrations take, so instances
// starting together do not race on CREATE TABLE.
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import type { SqlClient } from "@/server/db/pg/client";
import type { PgConfig } from "@/server/db/pg/config";
import { MIGRATION_LOCK_KEY } from "@/server/db/pg/migrate";
import type { ChannelMode } from "./mode";
import { createPgCheckpointStore } from "./pg-store";
import { StampingSaver } from "./stamping-saver";
import type { CheckpointStore } from "./store";

/**
 * The saver's pool, sized and bounded like our own connections: at most
 * PG_POOL_MAX sessions, the same statement and lock timeouts, the same
 * application name (suffixed, so pg_stat_activity tells them apart).
 */
export function createSaverPool(config: PgConfig): pg.Pool {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolMax,
    statement_timeout: config.timeouts.statementTimeoutMs,
    lock_timeout: config.timeouts.lockTimeoutMs,
    application_name: `${config.applicationName} checkpoints`,
    idleTimeoutMillis: 30_000,
  });
  // An idle session the server ends (restart, admin kill) must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Runs the saver's setup on one session of `pool` that first takes the
 * migration advisory lock (session level, awaited: a blocking wait on the
 * runtime's synchronous connection would stall the event loop, and with it
 * any other instance in this process that holds the lock). A PostgresSaver
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

/** The process's PostgresSaver: its pool, and its tables' setup started at runtime open. */
export type PgSaverHandle = {
  inner: PostgresSaver;
  /** Settles when the saver's tables exist; after a failed setup the next call tries again. */
  ready(): Promise<void>;
  close(): Promise<void>;
};

/**
 * Creates the saver's pool (or uses `pool`) and starts its setup (async;
 * saver calls await `ready()`).
 */
export function startPgSaver(options: { config: PgConfig } | { pool: pg.Pool }): PgSaverHandle {
  const ownsPool = "config" in options;
  const pool = "config" in options ? createSaverPool(options.config) : options.pool;
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
    close: async () => {
      if (ownsPool) await pool.end();
    },
  };
}

/**
 * Our stamping saver (in the process mode) around the shared PostgresSaver,
 * and the store on `client`. Every saver call first awaits the tables'
 * setup that startPgSaver started.
 */
export function openPgCheckpoints(options: { handle: PgSaverHandle; client: SqlClient; mode: ChannelMode }): { saver: StampingSaver; store: CheckpointStore } {
  const store = createPgCheckpointStore(options.client);
  const { handle } = options;
  const saver = new StampingSaver({ inner: handle.inner, setup: () => undefined, ready: () => handle.ready(), uniqueVersions: true, store, mode: options.mode });
  return { saver, store };
}
