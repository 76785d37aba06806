// Test helper: a real SQLite file in a temp directory with migrations applied.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MIGRATIONS_DIR, openDatabase, type DbHandle, type Sqlite } from "./client";
import { wrapSqliteDb, type SqliteDb } from "./sqlite-db";

export type TestDb = DbHandle & {
  dir: string;
  /** The same file behind the asynchronous boundary (writer queue on `sqlite`, plus a read connection), opened on first use. */
  readonly db: SqliteDb;
  close(): void;
};

// One asynchronous wrapper per test connection: two would keep two writer
// queues on one connection and could interleave their transactions.
const wrapped = new WeakMap<Sqlite, SqliteDb>();

/**
 * The asynchronous database over a test's writer connection: the one its
 * TestDb already opened, else one reading on that same connection.
 */
export function testDbOf(sqlite: Sqlite): SqliteDb {
  let db = wrapped.get(sqlite);
  if (!db) wrapped.set(sqlite, (db = wrapSqliteDb({ sqlite, file: sqlite.name }, { reader: false })));
  return db;
}

export function createTestDb(prefix = "ws-test-"): TestDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const handle = openDatabase({ file: path.join(dir, "workspace.db") });
  let db: SqliteDb | undefined;
  return {
    ...handle,
    dir,
    get db() {
      if (!db) {
        db = wrapped.get(handle.sqlite) ?? wrapSqliteDb(handle);
        wrapped.set(handle.sqlite, db);
      }
      return db;
    },
    close() {
      db?.closeNow();
      if (handle.sqlite.open) handle.sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A copy of the SQLite migrations folder holding only the migrations before
 * the one whose tag ends with `tagSuffix` (`account_lifecycle`): a database
 * migrated from it has the schema an older release wrote, whatever
 * migrations were added after that one.
 */
export function migrationsDirBefore(tagSuffix: string): string {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((entry) => entry.tag.endsWith(`_${tagSuffix}`));
  if (cut < 0) throw new Error(`no migration tagged *_${tagSuffix} in ${MIGRATIONS_DIR}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ws-migrations-"));
  fs.mkdirSync(path.join(dir, "meta"));
  const kept = journal.entries.slice(0, cut);
  for (const entry of kept) fs.copyFileSync(path.join(MIGRATIONS_DIR, `${entry.tag}.sql`), path.join(dir, `${entry.tag}.sql`));
  fs.writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify({ ...journal, entries: kept }));
  return dir;
}
