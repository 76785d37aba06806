// Test helper: a fresh PostgreSQL database per test file on the server that
// TEST_POSTGRES_URL names (.ci/run starts a throwaway cluster and sets it),
// migrated, and dropped afterwards, all on node-postgres. Without
// TEST_POSTGRES_URL the PostgreSQL variants of the suites are skipped.
import crypto from "node:crypto";
import pg from "pg";
import { applyPgMigrations } from "./migrate";
import { readPgConfig } from "./config";
import { createPgDb, type PgDb } from "./pg-db";
import { withDatabase } from "./url";

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL?.trim() || undefined;

export type PgTestDb = {
  /** The database behind the asynchronous boundary (a node-postgres pool). */
  readonly db: PgDb;
  url: string;
  name: string;
  /** Between tests: empties every table and restarts the identity counters, so each test sees a new database. */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/** One statement on the server's maintenance database (create / drop database cannot run in a transaction). */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

const newName = () => `test_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;

export async function createPgTestDb(serverUrl: string | undefined = TEST_POSTGRES_URL): Promise<PgTestDb> {
  if (!serverUrl) throw new Error("TEST_POSTGRES_URL is not set");
  const name = newName();
  await onServer(serverUrl, `create database ${name}`);
  const url = withDatabase(serverUrl, name);
  const db = createPgDb(readPgConfig(url, { PG_POOL_MAX: "4" }));
  await applyPgMigrations(db);
  return {
    db,
    url,
    name,
    async reset() {
      const row = await db.one<{ tables: string }>(`select string_agg(quote_ident(tablename), ', ') as tables from pg_tables where schemaname = 'public'`);
      await db.exec(`truncate ${row!.tables} restart identity cascade`);
    },
    async close() {
      await db.close();
      await onServer(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/** An empty database (not migrated: whoever opens it migrates) on the TEST_POSTGRES_URL server. */
export async function createEmptyPgDatabase(serverUrl: string | undefined = TEST_POSTGRES_URL): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  if (!serverUrl) throw new Error("TEST_POSTGRES_URL is not set");
  const name = newName();
  await onServer(serverUrl, `create database ${name}`);
  return {
    url: withDatabase(serverUrl, name),
    name,
    drop: () => onServer(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
