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
import type { DbHandle } from "./db/client";
import type { SqlClient } from "./db/pg/client";
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
};

/** The stores of one open SQLite connection (statements are prepared once per connection). */
export function openSqliteStores(handle: DbHandle): Stores {
  return {
    workspace: createSqliteWorkspaceStore(handle.sqlite),
    auth: createSqliteAuthStore(handle.sqlite),
    maintenance: createSqliteMaintenanceStore(handle),
    compaction: createSqliteCompactionStore(handle.sqlite),
    checkpoints: createSqliteCheckpointStore(handle.sqlite),
    audit: createSqliteAuditStore(handle.sqlite),
  };
}

/** The PostgreSQL stores that need no database URL (workspace, auth, audit). */
export type PgStores = Pick<Stores, "workspace" | "auth" | "audit">;

/**
 * The stores of one open PostgreSQL connection (synchronous; see server/db/pg).
 * `url` lets the maintenance store run pg_dump / vacuumdb against the same
 * database. Importing this does not load the libpq binding; connecting does.
 */
export function openPgStores(client: SqlClient, options?: { url: string; env?: Readonly<Record<string, string | undefined>> }): Stores;
export function openPgStores(client: SqlClient): PgStores;
export function openPgStores(client: SqlClient, options?: { url: string; env?: Readonly<Record<string, string | undefined>> }): Stores | PgStores {
  const base: PgStores = { workspace: createPgWorkspaceStore(client), auth: createPgAuthStore(client), audit: createPgAuditStore(client) };
  if (!options) return base;
  return {
    ...base,
    maintenance: createPgMaintenanceStore({ client, url: options.url, env: options.env }),
    compaction: createPgCompactionStore(client),
    checkpoints: createPgCheckpointStore(client),
  };
}
