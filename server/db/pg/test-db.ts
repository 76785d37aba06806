// Test helper: a fresh PostgreSQL database per test file on the server that
// TEST_POSTGRES_URL names (.ci/run starts a throwaway cluster and sets it),
// migrated, and dropped afterwards. Without TEST_POSTGRES_URL the
// PostgreSQL variants of the suites are skipped.
import crypto from "node:crypto";
import { connectPg, type SqlClient } from "./client";
import { migratePg } from "./migrate";
import { readPgConfig } from "./config";
import { createPgDb, type PgDb } from "./pg-db";
import { withDatabase } from "./url";

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL?.trim() || undefined;

export type PgTestDb = {
  client: SqlClient;
  /** The same database behind the asynchronous boundary (a node-postgres pool), opened on first use. */
  readonly db: PgDb;
  url: string;
  name: string;
  reset(): void;
  close(): Promise<void>;
};

export function createPgTestDb(serverUrl: string | undefined = TEST_POSTGRES_URL): PgTestDb {
  if (!serverUrl) throw new Error("TEST_POSTGRES_URL is not set");
  const name = `test_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  const admin = connectPg({ url: serverUrl });
  try {
    admin.exec(`create database ${name}`);
  } finally {
    admin.close();
  }
  const url = withDatabase(serverUrl, name);
  const client = connectPg({ url });
  migratePg(client);
  let db: PgDb | undefined;
  return {
    client,
    get db() {
      db ??= createPgDb(readPgConfig(url, { PG_POOL_MAX: "4" }));
      return db;
    },
    url,
    name,
    // Between tests: empty every table and restart the identity counters, so each test sees a new database.
    reset() {
      const { tables } = client.one<{ tables: string }>(`select string_agg(quote_ident(tablename), ', ') as tables from pg_tables where schemaname = 'public'`)!;
      client.exec(`truncate ${tables} restart identity cascade`);
    },
    async close() {
      client.close();
      await db?.close();
      const dropper = connectPg({ url: serverUrl });
      try {
        dropper.exec(`drop database if exists ${name} with (force)`);
      } finally {
        dropper.close();
      }
    },
  };
}

/** An empty database (not migrated: whoever opens it migrates) on the TEST_POSTGRES_URL server. */
export function createEmptyPgDatabase(serverUrl: string | undefined = TEST_POSTGRES_URL): { url: string; name: string; drop(): void } {
  if (!serverUrl) throw new Error("TEST_POSTGRES_URL is not set");
  const name = `test_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  const admin = connectPg({ url: serverUrl });
  try {
    admin.exec(`create database ${name}`);
  } finally {
    admin.close();
  }
  return {
    url: withDatabase(serverUrl, name),
    name,
    drop() {
      const dropper = connectPg({ url: serverUrl });
      try {
        dropper.exec(`drop database if exists ${name} with (force)`);
      } finally {
        dropper.close();
      }
    },
  };
}
