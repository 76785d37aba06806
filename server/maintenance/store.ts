// The maintenance domain's access to the database engine: footprint,
// compaction, planner statistics, snapshots and integrity checks. Guards,
// backup files and their bookkeeping stay in the domain (backups/, vacuum.ts);
// the engine mechanics live in the implementation (sqlite-store.ts).
//
// Every verb returns a Promise (the asynchronous store boundary); the
// long-running ones run off the request thread (a worker thread or a child
// process), the short ones on the engine's connections.
import type { DatabaseStats } from "@/lib/database/api";

export type PageCounts = { pageSize: number; pageCount: number; freePages: number };

export type MaintenanceStore = {
  /** The database footprint from metadata only: no message body is read. */
  databaseStats(): Promise<DatabaseStats>;
  /** Bytes the database occupies on disk, its write-ahead log included. */
  diskBytes(): Promise<number>;
  /** Page size, page count and pages on the free list, from engine metadata (cheap: no table is read). */
  pageCounts(): Promise<PageCounts>;
  /**
   * Rebuilds the database so freed space returns to the file system and
   * waits up to busyTimeoutMs for other writers; "busy" when they kept it.
   * Once started it runs to completion (no cancellation).
   */
  vacuum(options: { busyTimeoutMs: number }): Promise<"done" | "busy">;
  /** Refreshes the query planner's statistics. */
  optimize(): Promise<void>;
  /** Writes a consistent copy of the live database into the new file `file`, without holding up writers. */
  snapshotInto(file: string): Promise<void>;
  /** True when `file` holds a database that passes the engine's full integrity check; false for anything else. */
  verifyFile(file: string): Promise<boolean>;
  /**
   * Replaces the sign-in state (sessions and the login throttle) of the
   * database file `file` with the live database's, in one transaction, then
   * closes this store's connections (the file is about to be swapped in):
   * both under the writer queue, so no request signs in or out in between.
   * Sessions of users that `file` does not have are dropped. The storage
   * history is carried the same way (it describes the install, not the
   * data). Returns how many sessions were carried.
   */
  carrySignInStateAndClose(file: string): Promise<{ sessions: number }>;
  /**
   * Engines that restore in place (PostgreSQL: pg_restore into the live
   * database in one transaction) instead of swapping a file: replaces the
   * database's contents with the backup `file` and keeps the live sign-in
   * state and storage history, as carrySignInStateAndClose does for a file
   * swap. Absent on SQLite.
   */
  restoreInPlace?(file: string): Promise<{ sessions: number }>;
};
