// PostgreSQL migrations on node-postgres: applied once under the advisory
// lock even when instances start together, and awaited before a runtime
// exists (nothing is served on an old schema).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, createRuntime, openRuntime } from "@/server/runtime";
import { readPgConfig } from "./config";
import { applyPgMigrations, PG_MIGRATIONS_DIR } from "./migrate";
import { createPgDb, type PgDb } from "./pg-db";
import { createEmptyPgDatabase, TEST_POSTGRES_URL } from "./test-db";

const journal = JSON.parse(fs.readFileSync(path.join(PG_MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };
const ALL_TAGS = journal.entries.map((entry) => entry.tag);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emptyDatabase(): Promise<string> {
  const db = await createEmptyPgDatabase();
  cleanups.push(() => db.drop());
  return db.url;
}

function pool(url: string): PgDb {
  const db = createPgDb(readPgConfig(url, { PG_POOL_MAX: "2" }));
  cleanups.push(() => db.close());
  return db;
}

describe.skipIf(!TEST_POSTGRES_URL)("PostgreSQL migrations on node-postgres", () => {
  it("instances migrating one empty database at once apply each migration once; a later run applies nothing", async () => {
    const url = await emptyDatabase();
    const results = await Promise.all([pool(url), pool(url), pool(url)].map((db) => applyPgMigrations(db)));
    // The advisory lock serializes them: the first applies everything, the others find it done.
    expect(results.map((tags) => tags.length).sort()).toEqual([0, 0, ALL_TAGS.length]);
    expect(results.find((tags) => tags.length > 0)).toEqual(ALL_TAGS);
    const db = pool(url);
    expect(await db.query(`select count(*)::int as n from drizzle.__drizzle_migrations`)).toEqual([{ n: ALL_TAGS.length }]);
    expect(await applyPgMigrations(db)).toEqual([]);
    const tables = await db.query<{ t: string }>(`select table_name as t from information_schema.tables where table_schema = 'public' order by 1`);
    expect(tables.map((r) => r.t)).toEqual(
      ["audit_events", "auth_sessions", "checkpoint_epochs", "checkpoint_runs", "expired_threads", "login_throttle", "maintenance_policies", "messages", "payload_restores", "queued_messages", "runs", "settings", "storage_samples", "task_holds", "task_sessions", "tasks", "turns", "users"],
    );
    // Message metadata is text (never json / jsonb): its bytes come back as written.
    expect(await db.one(`select data_type from information_schema.columns where table_name = 'messages' and column_name = 'metadata'`)).toEqual({ data_type: "text" });
  });

  it("a failing migration leaves the database as it was (one transaction)", async () => {
    const url = await emptyDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-migrations-"));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, "meta"));
    fs.writeFileSync(path.join(dir, "0000_a.sql"), "create table first_table (id int);");
    fs.writeFileSync(path.join(dir, "0001_b.sql"), "create table second_table (id int);\n--> statement-breakpoint\nselect no_such_function();");
    fs.writeFileSync(
      path.join(dir, "meta", "_journal.json"),
      JSON.stringify({ dialect: "postgresql", entries: [{ idx: 0, when: 1, tag: "0000_a" }, { idx: 1, when: 2, tag: "0001_b" }] }),
    );
    const db = pool(url);
    await expect(applyPgMigrations(db, { migrationsDir: dir })).rejects.toMatchObject({ code: "42883" });
    expect(await db.query(`select table_name from information_schema.tables where table_name in ('first_table', 'second_table')`)).toEqual([]);
  });

  it("createMigratedRuntime returns only once the schema is there; createRuntime refuses a PostgreSQL URL without an opened database", async () => {
    const url = await emptyDatabase();
    const log = createLogger({ level: "silent" });
    expect(() => createRuntime({ env: { DATABASE_URL: url }, log })).toThrow(/createMigratedRuntime/);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-migrated-runtime-"));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const rt = openRuntime(await createMigratedRuntime({ env: { DATABASE_URL: url, DATA_DIR: dataDir }, log }));
    expect(rt).not.toBeNull();
    cleanups.push(() => rt!.stop());
    // No statement of ours ran before the migration's: the first store read finds its table.
    expect(await rt!.stores.auth.countUsers()).toBe(0);
    expect(await pool(url).query(`select count(*)::int as n from drizzle.__drizzle_migrations`)).toEqual([{ n: ALL_TAGS.length }]);
  });
});
