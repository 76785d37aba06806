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
          total += fs.statSync(part).size;
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
  };
}
