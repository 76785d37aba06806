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
 * Runs the saver's setup while `lockClient` holds the migration advisory
 * lock (session level: the setup runs on the saver's own sessions, across
 * awaits, so a transaction-scoped lock cannot span it).
 */
export async function setupUnderMigrationLock(inner: PostgresSaver, lockClient: SqlClient): Promise<void> {
  lockClient.one(`select pg_advisory_lock($1)`, [MIGRATION_LOCK_KEY]);
  try {
    await inner.setup();
  } finally {
    lockClient.one(`select pg_advisory_unlock($1)`, [MIGRATION_LOCK_KEY]);
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
 * saver calls await `ready()`). `client` is the runtime's synchronous
 * connection, which holds the setup lock.
 */
export function startPgSaver(options: { client: SqlClient; config: PgConfig } | { client: SqlClient; pool: pg.Pool }): PgSaverHandle {
  const ownsPool = "config" in options;
  const pool = "config" in options ? createSaverPool(options.config) : options.pool;
  const inner = new PostgresSaver(pool);
  let failed = false;
  const start = (): Promise<void> => {
    failed = false;
    const setup = setupUnderMigrationLock(inner, options.client);
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
