// The database a benchmark's app server runs on: a migrated temp SQLite file
// in `dir`, or (with a PostgreSQL URL) a fresh migrated database on that
// server, dropped on close. Statements are written with `?` placeholders for
// both engines.
import path from "node:path";
import Database from "better-sqlite3";
import { openDatabase } from "@/server/db/client";
import { createPgTestDb } from "@/server/db/pg/test-db";

export type BenchDb = {
  /** DATABASE_URL for the server. */
  url: string;
  run(sql: string, params: unknown[]): Promise<void>;
  /** The `n` column of the statement's first row. */
  count(sql: string): Promise<number>;
  close(): Promise<void>;
};

function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export async function openBenchDb(options: { dir: string; postgres: string | null }): Promise<BenchDb> {
  if (options.postgres) {
    const pg = await createPgTestDb(options.postgres);
    return {
      url: pg.url,
      run: async (sql, params) => void (await pg.db.run(numbered(sql), params)),
      count: async (sql) => Number((await pg.db.query<{ n: number | string }>(sql))[0]!.n),
      close: () => pg.close(),
    };
  }
  const file = path.join(options.dir, "workspace.db");
  openDatabase({ file }).sqlite.close();
  // A connection per call: the server holds its own, and a bench's writes are few.
  const withDb = <T>(readonly: boolean, fn: (db: Database.Database) => T): T => {
    const db = new Database(file, { readonly });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    url: `file:${file}`,
    run: async (sql, params) => void withDb(false, (db) => db.prepare(sql).run(...params)),
    count: async (sql) => withDb(true, (db) => (db.prepare(sql).get() as { n: number }).n),
    close: async () => {},
  };
}
