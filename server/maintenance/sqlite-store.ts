import "server-only";
import fs from "node:fs";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { MaintenanceStore, PageCounts } from "./store";
import { readDatabaseStats } from "./sqlite-stats";
import { runSqliteThread, SqliteThreadError } from "./sqlite-thread";

const PAGE_COUNTS_SQL = "select page_size as pageSize, page_count as pageCount, freelist_count as freePages from pragma_page_size, pragma_page_count, pragma_freelist_count";

/**
 * The SQLite implementation of the MaintenanceStore. VACUUM, VACUUM INTO,
 * integrity_check and the dbstat walks run on a worker thread with their
 * own connection to `file` (sqlite-thread.ts); `sqlite` is the live
 * connection for the cheap schema reads and PRAGMA optimize.
 */
export function createSqliteMaintenanceStore(handle: { sqlite: Sqlite; file: string }): MaintenanceStore {
  const { sqlite, file } = handle;
  return {
    databaseStats: () => readDatabaseStats({ sqlite, dbFile: file }),

    diskBytes() {
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

    pageCounts() {
      const row = statement(sqlite, PAGE_COUNTS_SQL).get() as PageCounts | undefined;
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

    optimize() {
      sqlite.pragma("optimize");
    },

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

    // Attached to the live connection so the copy reads the latest committed
    // state. Rollback-journal mode on the attached file: no -wal is left
    // beside it to be separated from it by the rename that follows.
    carrySignInStateInto(target) {
      sqlite.prepare("attach database ? as restored").run(target);
      try {
        sqlite.pragma("restored.journal_mode = DELETE");
        return sqlite.transaction(() => {
          sqlite.prepare("delete from restored.auth_sessions").run();
          const carried = sqlite
            .prepare(
              `insert into restored.auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms, revoked_at_ms)
               select token_hash, user_id, created_at_ms, expires_at_ms, revoked_at_ms from main.auth_sessions
               where user_id in (select id from restored.users)`,
            )
            .run();
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
    },
  };
}
