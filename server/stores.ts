// Every domain's store, built for the runtime's database engine in one place:
// domain code and routes reach the database only through these typed verbs.
// A second engine adds its own `open<Engine>Stores` beside this one.
import type { AuthStore } from "./auth/store";
import { createSqliteAuthStore } from "./auth/sqlite-store";
import type { CheckpointStore } from "./checkpoints/store";
import { createSqliteCheckpointStore } from "./checkpoints/sqlite-store";
import type { CompactionStore } from "./compaction/store";
import { createSqliteCompactionStore } from "./compaction/store/sqlite-store";
import type { DbHandle } from "./db/client";
import type { MaintenanceStore } from "./maintenance/store";
import { createSqliteMaintenanceStore } from "./maintenance/sqlite-store";
import type { WorkspaceStore } from "./workspace/store";
import { createSqliteWorkspaceStore } from "./workspace/sqlite-store";

export type Stores = {
  workspace: WorkspaceStore;
  auth: AuthStore;
  maintenance: MaintenanceStore;
  compaction: CompactionStore;
  checkpoints: CheckpointStore;
};

/** The stores of one open SQLite connection (statements are prepared once per connection). */
export function openSqliteStores(handle: DbHandle): Stores {
  return {
    workspace: createSqliteWorkspaceStore(handle.sqlite),
    auth: createSqliteAuthStore(handle.sqlite),
    maintenance: createSqliteMaintenanceStore(handle),
    compaction: createSqliteCompactionStore(handle.sqlite),
    checkpoints: createSqliteCheckpointStore(handle.sqlite),
  };
}
