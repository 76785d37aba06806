// Test-only: a PostgreSQL database that holds the bytes other writers leave
// behind. A UTF8 database refuses text that is not UTF-8; a SQL_ASCII one
// stores any bytes but NUL, as old installs and some tools create them. The
// messages table loses its NOT NULL on metadata, as a table another tool
// created might lack it. Rows are written and read as hex (convert_from /
// convert_to ... 'SQL_ASCII' convert nothing), so no driver re-encodes them.
import crypto from "node:crypto";
import pg from "pg";
import { readPgConfig } from "@/server/db/pg/config";
import { applyPgMigrations } from "@/server/db/pg/migrate";
import { createPgDb, type PgDb, type PgQueryable } from "@/server/db/pg/pg-db";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { withDatabase } from "@/server/db/pg/url";
import type { FuzzDb } from "../reducer/differential-test-support";
import { createPgCompactionStore } from "./pg-store";

export type PgBytesDb = {
  /** The database behind the asynchronous boundary (a node-postgres pool; its sessions talk SQL_ASCII). */
  readonly db: PgDb;
  /** The database's URL (for pg_dump, or a pool of its own). */
  url: string;
  /** Empties every table, so a test starts from no record and no rows (a failed one leaves no operation behind). */
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

export async function createPgBytesDb(serverUrl: string | undefined = TEST_POSTGRES_URL): Promise<PgBytesDb> {
  if (!serverUrl) throw new Error("TEST_POSTGRES_URL is not set");
  const name = `test_bytes_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  await onServer(serverUrl, `create database ${name} encoding 'SQL_ASCII' template template0 lc_collate 'C' lc_ctype 'C'`);
  const url = withDatabase(serverUrl, name);
  const db = createPgDb(readPgConfig(url, { PG_POOL_MAX: "4" }));
  await applyPgMigrations(db);
  await db.exec("alter table messages alter column metadata drop not null");
  return {
    db,
    url,
    async reset() {
      const { tables } = (await db.one<{ tables: string }>(`select string_agg(quote_ident(tablename), ', ') as tables from pg_tables where schemaname = 'public'`))!;
      await db.exec(`truncate ${tables} restart identity cascade`);
    },
    async close() {
      await db.close();
      await onServer(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

const OLD = "2025-01-01T00:00:00Z";
const OLD_MS = Date.parse(OLD);

/** An idle task with one session and one turn, stamped as the SQLite test builders stamp theirs. */
export async function insertPgTask(db: PgQueryable, taskId: string): Promise<void> {
  await db.run(`insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values ($1, 't', 'COMPLETED', $2, $3, $2, $3)`, [taskId, OLD, OLD_MS]);
  await db.run(
    `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms) values ($1, $2, 'COMPLETED', $3, $4, $3, $4, $3, $4)`,
    [`${taskId}-s1`, taskId, OLD, OLD_MS],
  );
  await db.run(`insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values ($1, $2, $3, $4, $3, $4)`, [`${taskId}-u1`, `${taskId}-s1`, OLD, OLD_MS]);
}

/** A message with exactly `bytes` as metadata (NULL for `storage: "blob"`: the value PostgreSQL text cannot be). */
export async function insertPgBytes(db: PgQueryable, row: { id: string; sessionId: string; type: string; bytes: Buffer; storage: "text" | "blob" }): Promise<void> {
  await db.run(
    `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
     values ($1, $2, null, 'agent', $3, 'tool', case when $4::text is null then null else convert_from(decode($4, 'hex'), 'SQL_ASCII') end, $1, $5, $6, $5, $6)`,
    [row.id, row.sessionId, row.type, row.storage === "blob" ? null : row.bytes.toString("hex"), OLD, OLD_MS],
  );
}

export async function storedPgBytes(db: PgQueryable, where: { rowid?: number; id?: string }): Promise<{ type: string; bytes: Buffer }> {
  const row = (await db.one<{ type: string; hex: string | null }>(
    `select case when metadata is null then 'null' else 'text' end as type, encode(convert_to(metadata, 'SQL_ASCII'), 'hex') as hex from messages where ${where.rowid !== undefined ? "rowid = $1" : "id = $1"}`,
    [where.rowid ?? where.id],
  ))!;
  return { type: row.type, bytes: Buffer.from(row.hex ?? "", "hex") };
}

/** The differential fuzz's database on PostgreSQL. */
export async function pgFuzzDb(db: PgBytesDb): Promise<FuzzDb> {
  await insertPgTask(db.db, "f");
  return {
    store: createPgCompactionStore(db.db),
    holds: (row) => !row.bytes.includes(0),
    insert: (id, row) => insertPgBytes(db.db, { id, sessionId: "f-s1", ...row }),
    stored: (rowid) => storedPgBytes(db.db, { rowid }),
    clear: async () => void (await db.db.run("delete from messages where session_id = 'f-s1'")),
    close: () => db.close(),
  };
}
