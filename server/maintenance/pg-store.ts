// The PostgreSQL implementation of the MaintenanceStore. What differs from
// SQLite, each for a reason:
// - the footprint comes from the catalog (pg_database_size, pg_table_size,
//   pg_indexes_size, pg_stat_user_tables): no table is read;
// - "vacuum" is `VACUUM (ANALYZE)` per table through vacuumdb: PostgreSQL
//   reuses dead space in place; a plain VACUUM marks it reusable without the
//   exclusive lock a whole-file rebuild (VACUUM FULL) would take;
// - a snapshot is `pg_dump --format=custom` (one consistent snapshot of the
//   database, writers never wait), checked with `pg_restore --list` and,
//   when PG_BACKUP_VERIFY_RESTORE=1, a full restore into a scratch database
//   that is dropped afterwards.
// - a restore is pg_restore --clean in one transaction into the live
//   database (no file swap); the live sign-in state is kept, as on SQLite.
import "server-only";
import crypto from "node:crypto";
import type { DatabaseStats, TableStats } from "@/lib/database/api";
import type { SqlClient } from "@/server/db/pg/client";
import { withDatabase } from "@/server/db/pg/url";
import { AppError } from "@/server/errors";
import { PgToolError, runPgTool } from "./pg-tools";
import type { MaintenanceStore, PageCounts } from "./store";

const PAGES_SQL = `select current_setting('block_size')::int as "pageSize",
    (pg_database_size(current_database()) / current_setting('block_size')::int)::bigint as "pageCount"`;

const TABLES_SQL = `select c.relname as name, greatest(coalesce(s.n_live_tup, 0), 0)::bigint as rows,
    pg_table_size(c.oid) as "tableBytes", pg_indexes_size(c.oid) as "indexBytes",
    coalesce(s.n_dead_tup, 0)::bigint as "deadTuples"
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  left join pg_stat_user_tables s on s.relid = c.oid
  where n.nspname = 'public' and c.relkind in ('r', 'p')
  order by c.relname`;

export type PgMaintenanceOptions = {
  client: SqlClient;
  url: string;
  env?: Readonly<Record<string, string | undefined>>;
};

function lockTimeoutEnv(ms: number): Record<string, string> {
  return { PGOPTIONS: `-c lock_timeout=${Math.max(1, Math.trunc(ms))}` };
}

export function createPgMaintenanceStore(options: PgMaintenanceOptions): MaintenanceStore {
  const { client, url } = options;
  const env = options.env ?? process.env;
  const diskBytes = () => client.one<{ bytes: number }>(`select pg_database_size(current_database()) as bytes`)!.bytes;
  const pageCounts = (): PageCounts => ({ ...client.one<{ pageSize: number; pageCount: number }>(PAGES_SQL)!, freePages: 0 });
  const publicTables = () => client.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`).map((r) => r.name);

  return {
    async databaseStats(): Promise<DatabaseStats> {
      const pages = pageCounts();
      const tables: TableStats[] = client
        .query<Omit<TableStats, "totalBytes" | "bytesMethod">>(TABLES_SQL)
        .map((row) => ({ ...row, totalBytes: row.tableBytes + row.indexBytes, bytesMethod: "catalog" as const }))
        .sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name));
      return { fileBytes: diskBytes(), walBytes: 0, ...pages, freeBytes: 0, tables };
    },

    diskBytes,
    pageCounts,

    async vacuum({ busyTimeoutMs }) {
      try {
        for (const table of publicTables()) {
          await runPgTool("vacuumdb", ["--analyze", "--quiet", `--table=public.${table}`, `--dbname=${url}`], lockTimeoutEnv(busyTimeoutMs));
        }
        return "done";
      } catch (error) {
        if (error instanceof PgToolError && /lock timeout|could not obtain lock/i.test(error.message)) return "busy";
        throw error;
      }
    },

    optimize() {
      client.exec("analyze");
    },

    async snapshotInto(file) {
      await runPgTool("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`, `--dbname=${url}`]);
    },

    async verifyFile(file) {
      try {
        const { stdout } = await runPgTool("pg_restore", ["--list", file]);
        // A dump of this product names the messages table's data.
        if (!/TABLE DATA public messages /.test(stdout)) return false;
        if (env.PG_BACKUP_VERIFY_RESTORE === "1") await restoreIntoScratch(client, url, file);
        return true;
      } catch {
        return false;
      }
    },

    carrySignInStateInto() {
      throw new AppError("unsupported_engine", "PostgreSQL backups are restored in place (restoreInPlace)");
    },

    async restoreInPlace(file) {
      const sessions = client.query<SessionRow>(`select token_hash, user_id, created_at_ms, expires_at_ms, revoked_at_ms from auth_sessions`);
      const throttle = client.query<ThrottleRow>(`select key, failures, window_start_ms, locked_until_ms from login_throttle`);
      // One transaction: a failure leaves the database as it was. Other
      // instances' statements wait on the dropped tables' locks meanwhile;
      // the recreated messages table changes the schema version, which ends
      // any pass that was running there at its next batch.
      await runPgTool("pg_restore", ["--clean", "--if-exists", "--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges", `--dbname=${url}`, file]);
      return client.transaction(() => {
        client.run(`delete from auth_sessions`);
        let kept = 0;
        for (const row of sessions) {
          kept += client.run(
            `insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms, revoked_at_ms)
             select $1, $2, $3, $4, $5 where exists (select 1 from users where id = $2)`,
            [row.token_hash, row.user_id, row.created_at_ms, row.expires_at_ms, row.revoked_at_ms],
          );
        }
        client.run(`delete from login_throttle`);
        for (const row of throttle) {
          client.run(`insert into login_throttle (key, failures, window_start_ms, locked_until_ms) values ($1, $2, $3, $4)`, [
            row.key,
            row.failures,
            row.window_start_ms,
            row.locked_until_ms,
          ]);
        }
        return { sessions: kept };
      });
    },
  };
}

type SessionRow = { token_hash: string; user_id: string; created_at_ms: number; expires_at_ms: number; revoked_at_ms: number | null };
type ThrottleRow = { key: string; failures: number; window_start_ms: number; locked_until_ms: number | null };

/** Restores a dump into a fresh database on the same server and drops it again. */
async function restoreIntoScratch(client: SqlClient, url: string, file: string): Promise<void> {
  const name = `verify_${crypto.randomBytes(6).toString("hex")}`;
  client.exec(`create database ${name}`);
  try {
    await runPgTool("pg_restore", ["--exit-on-error", "--no-owner", "--no-privileges", `--dbname=${withDatabase(url, name)}`, file]);
  } finally {
    client.exec(`drop database if exists ${name} with (force)`);
  }
}
