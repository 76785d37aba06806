import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type Sqlite = Database.Database;
export type Db = BetterSQLite3Database<typeof schema>;
export type DbHandle = { sqlite: Sqlite; db: Db; file: string };

export const MIGRATIONS_DIR = path.join(process.cwd(), "drizzle");

export type OpenOptions = {
  file: string;
  /** Apply committed migrations (default true). */
  migrate?: boolean;
  readonly?: boolean;
  /** Milliseconds a writer waits for the lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  migrationsDir?: string;
};

/** Opens one connection with the workspace pragmas applied. */
export function openDatabase(options: OpenOptions): DbHandle {
  const { file, readonly = false, busyTimeoutMs = 5000 } = options;
  if (!readonly && file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file, { readonly, fileMustExist: readonly });
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  if (!readonly) {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
  }
  sqlite.pragma("foreign_keys = ON");
  const db = drizzle(sqlite, { schema });
  if (!readonly && options.migrate !== false) {
    migrate(db, { migrationsFolder: options.migrationsDir ?? MIGRATIONS_DIR });
  }
  return { sqlite, db, file };
}
