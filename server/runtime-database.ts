// The runtime's database and the stores on it: the SQLite file (opened again
// after a restore swapped it) or the migrated PostgreSQL pool, each domain's
// store built on the connection of the moment, and the one test of "is it
// open now" that every background reader asks before it reads.
import { openPgStores, openSqliteStores, type Stores } from "./stores";
import { openSqliteDb, type SqliteDb } from "./db/sqlite-db";
import { postgresDataAnchor, type DatabaseTarget } from "./db/url";
import type { OpenedPostgres } from "./runtime-postgres";
import type { Logger } from "./log";
import type { Runtime } from "./runtime-types";

export type RuntimeDatabase = Pick<Runtime, "handle" | "postgres" | "dbFile">;

/**
 * The connection DATABASE_URL names: the SQLite file opened (and migrated)
 * now, or the pool createMigratedRuntime opened; none for an engine we do not
 * serve or a PostgreSQL server that could not be reached.
 */
export function openRuntimeDatabase(target: DatabaseTarget, env: Record<string, string | undefined>, log: Logger, opened: OpenedPostgres | null | undefined): RuntimeDatabase {
  if (target.engine === "sqlite") return { handle: openSqliteDb({ file: target.file, log }), postgres: null, dbFile: target.file };
  if (target.engine === "postgres") return { handle: null, postgres: opened?.db ?? null, dbFile: postgresDataAnchor(env) };
  return { handle: null, postgres: null, dbFile: null };
}

/** Every domain's store on the runtime's connection (null without one). */
export function storesOn(rt: Pick<Runtime, "target" | "handle" | "postgres">, env: Record<string, string | undefined>): Stores | null {
  if (rt.handle) return openSqliteStores(rt.handle);
  if (rt.postgres && rt.target.engine === "postgres") return openPgStores(rt.postgres, { url: rt.target.url, env });
  return null;
}

/** The stores while the database is open (a restore closes the SQLite file for a moment), else null. */
export function liveStores(rt: Pick<Runtime, "stores" | "handle" | "postgres">): Stores | null {
  return rt.stores && (rt.handle?.sqlite.open || rt.postgres) ? rt.stores : null;
}

/** After a restore swapped the SQLite file: the connection and its stores opened again (kept if still open). */
export function reopenSqlite(rt: Runtime, file: string): { handle: SqliteDb; stores: Stores } {
  if (!rt.handle?.sqlite.open) {
    rt.handle = openSqliteDb({ file, log: rt.log });
    rt.stores = openSqliteStores(rt.handle);
  }
  return { handle: rt.handle, stores: rt.stores ?? openSqliteStores(rt.handle) };
}
