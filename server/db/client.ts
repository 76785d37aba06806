import path from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { Logger } from "@/server/log";
import { prepareDatabaseFiles } from "./file-modes";
import * as schema from "./schema";

export type Sqlite = Database.Database;
// Queries are plain SQL in each domain's SQLite store (server/<domain>/sqlite-store.ts);
// drizzle only declares the schema (drizzle-kit generates migrations from it) and applies them.
export type DbHandle = { sqlite: Sqlite; file: string };

export const MIGRATIONS_DIR = path.join(process.cwd(), "drizzle");

export type OpenOptions = {
  file: string;
  /** Apply committed migrations (default true). */
  migrate?: boolean;
  readonly?: boolean;
  /** Milliseconds a writer waits for the lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  migrationsDir?: string;
  /** Told when existing database files had to be tightened to 0600. */
  log?: Logger;
  /** This connection's page cache in KiB (default: the driver's, 16 MiB). */
  cacheKiB?: number;
};

/** Opens one connection with the workspace pragmas applied. */
export function openDatabase(options: OpenOptions): DbHandle {
  const { file, readonly = false, busyTimeoutMs = 5000 } = options;
  // Checked before anything is opened: a bad size leaves no connection behind.
  if (options.cacheKiB !== undefined && (!Number.isInteger(options.cacheKiB) || options.cacheKiB < 1)) throw new RangeError("cacheKiB must be a positive integer");
  if (!readonly && file !== ":memory:") {
    const tightened = prepareDatabaseFiles(file);
    if (tightened.length > 0) options.log?.warn({ files: tightened, mode: "0600" }, "tightened database file modes");
  }
  const sqlite = new Database(file, { readonly, fileMustExist: readonly });
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  if (!readonly) {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
  }
  sqlite.pragma("foreign_keys = ON");
  if (options.cacheKiB !== undefined) sqlite.pragma(`cache_size = -${options.cacheKiB}`);
  if (!readonly && options.migrate !== false) {
    migrate(drizzle(sqlite, { schema }), { migrationsFolder: options.migrationsDir ?? MIGRATIONS_DIR });
  }
  return { sqlite, file };
}
