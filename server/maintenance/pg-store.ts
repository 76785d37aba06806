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
import { applyPgMigrations } from "@/server/db/pg/migrate";
import type { PgDb } from "@/server/db/pg/pg-db";
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
  db: PgDb;
  url: string;
  env?: Readonly<Record<string, string | undefined>>;
};

function lockTimeoutEnv(ms: number): Record<string, string> {
  return { PGOPTIONS: `-c lock_timeout=${Math.max(1, Math.trunc(ms))}` };
}

export function createPgMaintenanceStore(options: PgMaintenanceOptions): MaintenanceStore {
  const { db, url } = options;
  const env = options.env ?? process.env;
  const diskBytes = async () => (await db.one<{ bytes: number }>(`select pg_database_size(current_database()) as bytes`))!.bytes;
  const pageCounts = async (): Promise<PageCounts> => ({ ...(await db.one<{ pageSize: number; pageCount: number }>(PAGES_SQL))!, freePages: 0 });
  const publicTables = async () => (await db.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`)).map((r) => r.name);

  return {
    async databaseStats(): Promise<DatabaseStats> {
      const [pages, rows, fileBytes] = await Promise.all([pageCounts(), db.query<Omit<TableStats, "totalBytes" | "bytesMethod">>(TABLES_SQL), diskBytes()]);
      const tables: TableStats[] = rows
        .map((row) => ({ ...row, totalBytes: row.tableBytes + row.indexBytes, bytesMethod: "catalog" as const }))
        .sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name));
      return { fileBytes, walBytes: 0, ...pages, freeBytes: 0, tables };
    },

    diskBytes,
    pageCounts,

    async vacuum({ busyTimeoutMs }) {
      try {
        for (const table of await publicTables()) {
          await runPgTool("vacuumdb", { connection: url, args: ["--analyze", "--quiet", `--table=public.${table}`], env: lockTimeoutEnv(busyTimeoutMs) });
        }
        return "done";
      } catch (error) {
        if (error instanceof PgToolError && /lock timeout|could not obtain lock/i.test(error.message)) return "busy";
        throw error;
      }
    },

    optimize: () => db.exec("analyze"),

    async snapshotInto(file) {
      await runPgTool("pg_dump", { connection: url, args: ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`] });
    },

    async verifyFile(file) {
      try {
        const { stdout } = await runPgTool("pg_restore", { args: ["--list", file] });
        // A dump of this product names the messages table's data.
        if (!/TABLE DATA public messages /.test(stdout)) return false;
        if (env.PG_BACKUP_VERIFY_RESTORE === "1") await restoreIntoScratch(db, url, file);
        return true;
      } catch {
        return false;
      }
    },

    async carrySignInStateAndClose() {
      throw new AppError("unsupported_engine", "PostgreSQL backups are restored in place (restoreInPlace)");
    },

    // The live accounts, sessions and throttle are read before and written
    // back after: a restore brings the data back, not who may sign in (a
    // disabled user stays disabled, a demoted admin demoted). The restored
    // schema is brought up to date first: a backup may predate a migration.
    async restoreInPlace(file) {
      const users = await db.query<UserRow>(`select id, email, role, password_hash, created_at, disabled_at_ms, must_change_password from users`);
      const sessions = await db.query<SessionRow>(
        `select token_hash, id, user_id, created_at_ms, expires_at_ms, revoked_at_ms, last_seen_at_ms, client from auth_sessions`,
      );
      const throttle = await db.query<ThrottleRow>(`select key, failures, window_start_ms, locked_until_ms from login_throttle`);
      const history = await db.one<{ rows: string | null }>(`select json_agg(s)::text as rows from (select ${STORAGE_SAMPLE_COLUMNS} from storage_samples) s`);
      // One transaction: a failure leaves the database as it was. Other
      // instances' statements wait on the dropped tables' locks meanwhile;
      // the recreated messages table changes the schema version, which ends
      // any pass that was running there at its next batch.
      await runPgTool("pg_restore", { connection: url, args: ["--clean", "--if-exists", "--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges", file] });
      await applyPgMigrations(db);
      return db.transaction(async () => {
        await db.run(`delete from auth_sessions`);
        await db.run(`delete from users`);
        for (const row of users) {
          await db.run(
            `insert into users (id, email, role, password_hash, created_at, disabled_at_ms, must_change_password) values ($1, $2, $3, $4, $5, $6, $7)`,
            [row.id, row.email, row.role, row.password_hash, row.created_at, row.disabled_at_ms, row.must_change_password],
          );
        }
        let kept = 0;
        for (const row of sessions) {
          kept += await db.run(
            `insert into auth_sessions (token_hash, id, user_id, created_at_ms, expires_at_ms, revoked_at_ms, last_seen_at_ms, client)
             values ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [row.token_hash, row.id, row.user_id, row.created_at_ms, row.expires_at_ms, row.revoked_at_ms, row.last_seen_at_ms, row.client],
          );
        }
        await db.run(`delete from login_throttle`);
        for (const row of throttle) {
          await db.run(`insert into login_throttle (key, failures, window_start_ms, locked_until_ms) values ($1, $2, $3, $4)`, [
            row.key,
            row.failures,
            row.window_start_ms,
            row.locked_until_ms,
          ]);
        }
        // The storage history describes the install, not the data: the live one is kept whole.
        await db.run(`delete from storage_samples`);
        if (history?.rows) {
          await db.run(
            `insert into storage_samples (${STORAGE_SAMPLE_COLUMNS})
             select ${STORAGE_SAMPLE_COLUMNS} from json_to_recordset($1::json) as x(${STORAGE_SAMPLE_TYPES})`,
            [history.rows],
          );
          await db.run(`select setval(pg_get_serial_sequence('storage_samples', 'id'), (select max(id) from storage_samples))`);
        }
        return { sessions: kept };
      });
    },
  };
}

const STORAGE_SAMPLE_COLUMNS = `id, at_ms, sample_key, trigger, operation_id, method, total_bytes, used_bytes, free_bytes,
  messages_bytes, checkpoints_bytes, other_bytes, reclaimed_bytes, disk_free_bytes, tables`;
const STORAGE_SAMPLE_TYPES = `id bigint, at_ms bigint, sample_key text, trigger text, operation_id text, method text, total_bytes bigint,
  used_bytes bigint, free_bytes bigint, messages_bytes bigint, checkpoints_bytes bigint, other_bytes bigint, reclaimed_bytes bigint,
  disk_free_bytes bigint, tables text`;

type UserRow = {
  id: string;
  email: string;
  role: string;
  password_hash: string;
  created_at: string;
  disabled_at_ms: number | null;
  must_change_password: boolean;
};
type SessionRow = {
  token_hash: string;
  id: string | null;
  user_id: string;
  created_at_ms: number;
  expires_at_ms: number;
  revoked_at_ms: number | null;
  last_seen_at_ms: number | null;
  client: string | null;
};
type ThrottleRow = { key: string; failures: number; window_start_ms: number; locked_until_ms: number | null };

/** Restores a dump into a fresh database on the same server and drops it again. */
async function restoreIntoScratch(db: PgDb, url: string, file: string): Promise<void> {
  const name = `verify_${crypto.randomBytes(6).toString("hex")}`;
  await db.exec(`create database ${name}`);
  try {
    await runPgTool("pg_restore", { connection: withDatabase(url, name), args: ["--exit-on-error", "--no-owner", "--no-privileges", file] });
  } finally {
    await db.exec(`drop database if exists ${name} with (force)`);
  }
}
