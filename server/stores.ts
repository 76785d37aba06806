// Every domain's store, built for the runtime's database engine in one place:
// domain code and routes reach the database only through these typed verbs,
// with one implementation per engine (SQLite, PostgreSQL).
import type { AuditStore } from "./audit/store";
import { createPgAuditStore } from "./audit/pg-store";
import { createSqliteAuditStore } from "./audit/sqlite-store";
import type { AuthStore } from "./auth/store";
import { createPgAuthStore } from "./auth/pg-store";
import { createSqliteAuthStore } from "./auth/sqlite-store";
import type { CheckpointStore } from "./checkpoints/store";
import { createPgCheckpointStore } from "./checkpoints/pg-store";
import { createSqliteCheckpointStore } from "./checkpoints/sqlite-store";
import type { CompactionStore } from "./compaction/store";
import { createPgCompactionStore } from "./compaction/store/pg-store";
import { createSqliteCompactionStore } from "./compaction/store/sqlite-store";
import type { SqliteDb } from "./db/sqlite-db";
import type { PgDb } from "./db/pg/pg-db";
import type { HoldStore } from "./compaction/hold/store";
import { createPgHoldStore } from "./compaction/hold/pg-store";
import { createSqliteHoldStore } from "./compaction/hold/sqlite-store";
import type { RestoreStore } from "./compaction/restore/store";
import { createPgRestoreStore } from "./compaction/restore/pg-store";
import { createSqliteRestoreStore } from "./compaction/restore/sqlite-store";
import type { HistoryStore } from "./maintenance/history/store";
import { createPgHistoryStore } from "./maintenance/history/pg-store";
import { createSqliteHistoryStore } from "./maintenance/history/sqlite-store";
import type { CheckpointScheduleStore } from "./checkpoints/schedule/store";
import { createPgScheduleStore } from "./checkpoints/schedule/pg-store";
import { createSqliteScheduleStore } from "./checkpoints/schedule/sqlite-store";
import type { MaintenanceStore } from "./maintenance/store";
import { createPgMaintenanceStore } from "./maintenance/pg-store";
import { createSqliteMaintenanceStore } from "./maintenance/sqlite-store";
import type { WorkspaceStore } from "./workspace/store";
import { createPgWorkspaceStore } from "./workspace/pg-store";
import { createSqliteWorkspaceStore } from "./workspace/sqlite-store";

export type Stores = {
  workspace: WorkspaceStore;
  auth: AuthStore;
  maintenance: MaintenanceStore;
  compaction: CompactionStore;
  checkpoints: CheckpointStore;
  audit: AuditStore;
  /** Task holds (asynchronous on both engines). */
  holds: HoldStore;
  /** Per-task payload restores: the task's rows and the restore records (asynchronous on both engines). */
  restores: RestoreStore;
  /** The storage history's samples (asynchronous on both engines). */
  history: HistoryStore;
  /** Scheduled checkpoint maintenance: policies, thread expiry and its tombstones (asynchronous on both engines). */
  schedule: CheckpointScheduleStore;
};

/**
 * The stores of one open SQLite database (statements are prepared once per
 * connection). Converted domains take the database (writer queue and read
 * connection), the others still its writer connection.
 */
export function openSqliteStores(handle: SqliteDb): Stores {
  return {
    workspace: createSqliteWorkspaceStore(handle),
    auth: createSqliteAuthStore(handle),
    maintenance: createSqliteMaintenanceStore(handle),
    compaction: createSqliteCompactionStore(handle),
    checkpoints: createSqliteCheckpointStore(handle),
    audit: createSqliteAuditStore(handle),
    holds: createSqliteHoldStore(handle),
    restores: createSqliteRestoreStore(handle),
    history: createSqliteHistoryStore(handle),
    schedule: createSqliteScheduleStore(handle),
  };
}

/** The PostgreSQL stores that need no database URL (workspace, auth, audit). */
export type PgStores = Pick<Stores, "workspace" | "auth" | "audit">;

/**
 * The stores of one open PostgreSQL database (its node-postgres pool, see
 * server/db/pg). `url` lets the maintenance store run pg_dump / vacuumdb
 * against the same database.
 */
export function openPgStores(db: PgDb, options?: { url: string; env?: Readonly<Record<string, string | undefined>> }): Stores;
export function openPgStores(db: PgDb): PgStores;
export function openPgStores(db: PgDb, options?: { url: string; env?: Readonly<Record<string, string | undefined>> }): Stores | PgStores {
  const base: PgStores = { workspace: createPgWorkspaceStore(db), auth: createPgAuthStore(db), audit: createPgAuditStore(db) };
  if (!options) return base;
  return {
    ...base,
    maintenance: createPgMaintenanceStore({ db, url: options.url, env: options.env }),
    compaction: createPgCompactionStore(db),
    checkpoints: createPgCheckpointStore(db),
    holds: createPgHoldStore(db),
    restores: createPgRestoreStore(db),
    history: createPgHistoryStore(db),
    schedule: createPgScheduleStore(db),
  };
}
