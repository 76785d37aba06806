// Every domain's store, built for the runtime's database engine in one place:
// domain code and routes reach the database only through these typed verbs.
// PostgreSQL has `openPgStores` for the stores implemented so far; the
// runtime still reports a PostgreSQL URL as unsupported (DESIGN.md) until
// every store exists.
import type { AuditStore } from "./audit/store";
import { createPgAuditStore } from "./audit/pg-store";
import { createSqliteAuditStore } from "./audit/sqlite-store";
import type { AuthStore } from "./auth/store";
import { createPgAuthStore } from "./auth/pg-store";
import { createSqliteAuthStore } from "./auth/sqlite-store";
import type { CheckpointStore } from "./checkpoints/store";
import { createSqliteCheckpointStore } from "./checkpoints/sqlite-store";
import type { CompactionStore } from "./compaction/store";
import { createSqliteCompactionStore } from "./compaction/store/sqlite-store";
import type { DbHandle } from "./db/client";
import type { SqlClient } from "./db/pg/client";
import type { MaintenanceStore } from "./maintenance/store";
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

/** The PostgreSQL engine's stores so far (one synchronous connection; see server/db/pg). */
export type PgStores = Pick<Stores, "workspace" | "auth" | "audit">;

/** The stores of one open PostgreSQL connection. Importing this does not load the libpq binding; connecting does. */
export function openPgStores(client: SqlClient): PgStores {
  return {
    workspace: createPgWorkspaceStore(client),
    auth: createPgAuthStore(client),
    audit: createPgAuditStore(client),
  };
}
