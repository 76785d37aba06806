import "server-only";
import fs from "node:fs";
import { openDatabase, type Sqlite } from "@/server/db/client";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { DatabaseStats } from "@/lib/database/api";
import type { MaintenanceStore, PageCounts } from "./store";
import { readDatabaseStats } from "./sqlite-stats";
import { runSqliteThread, SqliteThreadError } from "./sqlite-thread";

const PAGE_COUNTS_SQL = "select page_size as pageSize, page_count as pageCount, freelist_count as freePages from pragma_page_size, pragma_page_count, pragma_freelist_count";

/**
 * The SQLite implementation of the MaintenanceStore. VACUUM, VACUUM INTO,
 * integrity_check and the dbstat walks run on a worker thread with their
 * own connection to `file` (sqlite-thread.ts); the live database answers
 * the cheap schema reads (read connection) and PRAGMA optimize (writer).
 */
export function createSqliteMaintenanceStore(db: SqliteDb): MaintenanceStore {
  const { file } = db;
  // Requests that arrive while a read runs share its answer: a hundred
  // viewers opening the Database page at once cost one walk. The store's
  // own, so a store opened on a restored file never answers with a walk of
  // the file it replaced, nor one runtime with another's.
  let statsInFlight: Promise<DatabaseStats> | null = null;
  return {
    databaseStats: () =>
      (statsInFlight ??= readDatabaseStats({ sqlite: db.reading(), dbFile: file }).finally(() => {
        statsInFlight = null;
      })),

    async diskBytes() {
      let total = 0;
      for (const part of [file, `${file}-wal`]) {
        try {
          total += fs.statSync(/*turbopackIgnore: true*/ part).size;
        } catch {
          // no WAL yet
        }
      }
      return total;
    },

    async pageCounts() {
      const row = statement(db.reading(), PAGE_COUNTS_SQL).get() as PageCounts | undefined;
      return row ?? { pageSize: 0, pageCount: 0, freePages: 0 };
    },

    async vacuum(options) {
      try {
        await runSqliteThread({ kind: "vacuum", file, busyTimeoutMs: options.busyTimeoutMs });
        return "done";
      } catch (error) {
        if (error instanceof SqliteThreadError && error.code.startsWith("SQLITE_BUSY")) return "busy";
        throw error;
      }
    },

    optimize: () =>
      db.write((writer) => {
        writer.pragma("optimize");
      }),

    async snapshotInto(target) {
      await runSqliteThread({ kind: "vacuum-into", file, target });
    },

    // Through a separate read-only connection: a snapshot is in
    // rollback-journal mode (VACUUM INTO output), so the open creates no side
    // files. A file that is not a database at all fails the check.
    async verifyFile(target) {
      try {
        return await runSqliteThread({ kind: "integrity-check", file: target });
      } catch {
        return false;
      }
    },

    // Attached to the live writer, holding its queue, so the copy reads the
    // latest committed state and nothing commits after it before the close.
    // Rollback-journal mode on the attached file: no -wal is left beside it
    // to be separated from it by the rename that follows. The
    // copy is first brought to the current schema (a backup may predate a
    // migration; the reopened runtime would apply it anyway). Accounts are
    // carried whole with the sessions: a restore must not re-enable a
    // disabled user, give back a demoted admin's role or an old password.
    carrySignInStateAndClose: (target) =>
      db.exclusive((sqlite) => {
        const carried = carrySignInState(sqlite, target);
        db.closeNow();
        return carried;
      }),
  };
}

const STORAGE_SAMPLE_COLUMNS = `id, at_ms, sample_key, trigger, operation_id, method, total_bytes, used_bytes, free_bytes,
  messages_bytes, checkpoints_bytes, other_bytes, reclaimed_bytes, disk_free_bytes, tables`;

function carrySignInState(sqlite: Sqlite, target: string): { sessions: number } {
  openDatabase({ file: target }).sqlite.close();
  sqlite.prepare("attach database ? as restored").run(target);
  try {
    sqlite.pragma("restored.journal_mode = DELETE");
    return sqlite.transaction(() => {
      sqlite.prepare("delete from restored.auth_sessions").run();
      sqlite.prepare("delete from restored.users").run();
      sqlite
        .prepare(
          `insert into restored.users (id, email, role, password_hash, created_at, disabled_at_ms, must_change_password)
           select id, email, role, password_hash, created_at, disabled_at_ms, must_change_password from main.users`,
        )
        .run();
      const carried = sqlite
        .prepare(
          `insert into restored.auth_sessions (token_hash, id, user_id, created_at_ms, expires_at_ms, revoked_at_ms, last_seen_at_ms, client)
           select token_hash, id, user_id, created_at_ms, expires_at_ms, revoked_at_ms, last_seen_at_ms, client from main.auth_sessions`,
        )
        .run();
      // The storage history describes the install, not the data: the live one is kept whole.
      sqlite.prepare("delete from restored.storage_samples").run();
      sqlite.prepare(`insert into restored.storage_samples (${STORAGE_SAMPLE_COLUMNS}) select ${STORAGE_SAMPLE_COLUMNS} from main.storage_samples`).run();
      sqlite.prepare("delete from restored.login_throttle").run();
      sqlite
        .prepare(
          `insert into restored.login_throttle (key, failures, window_start_ms, locked_until_ms)
           select key, failures, window_start_ms, locked_until_ms from main.login_throttle`,
        )
        .run();
      return { sessions: carried.changes };
    })();
  } finally {
    sqlite.prepare("detach database restored").run();
  }
}
