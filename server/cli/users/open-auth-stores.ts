// The auth and audit stores of DATABASE_URL for `npm run users`, on either
// engine, without the rest of the server's runtime (no worker, no event
// bridge): the command changes rows and exits.
import { openSqliteDb } from "@/server/db/sqlite-db";
import { parseDatabaseUrl } from "@/server/db/url";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import { openPostgres } from "@/server/runtime-postgres";
import { openPgStores, openSqliteStores, type PgStores } from "@/server/stores";

export type AuthStores = Pick<PgStores, "auth" | "audit">;

export async function openAuthStores(env: Record<string, string | undefined>, log: Logger): Promise<{ stores: AuthStores; close(): Promise<void> }> {
  const target = parseDatabaseUrl(env.DATABASE_URL);
  if (target.engine === "sqlite") {
    const handle = openSqliteDb({ file: target.file, log });
    return { stores: openSqliteStores(handle), close: () => handle.close() };
  }
  if (target.engine === "postgres") {
    // Migrates as the server does at start, so a fresh database gets its tables.
    const opened = await openPostgres(target.url, env, log);
    if (!opened) throw new AppError("unsupported_engine", "The PostgreSQL server of DATABASE_URL cannot be reached");
    return {
      stores: openPgStores(opened.db),
      close: () => opened.db.close(),
    };
  }
  throw new AppError("unsupported_engine", "DATABASE_URL names an unsupported engine");
}
