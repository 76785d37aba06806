// The PostgreSQL implementation of the HoldStore, on the node-postgres pool.
// Its writer transaction takes the compaction writer lock (see store.ts).
import "server-only";
import type { PgDb } from "@/server/db/pg/pg-db";
import { writerTransaction } from "@/server/db/pg/writer-lock";
import type { HoldStore, TaskHoldRow } from "./store";

export const PG_HOLD_SQL = {
  taskExists: `select 1 as hit from tasks where id = $1`,
  read: `select h.task_id as "taskId", h.held_at as "heldAt", h.held_at_ms as "heldAtMs", h.held_by as "heldBy", u.email as "heldByEmail", h.restore_id as "restoreId"
         from task_holds h left join users u on u.id = h.held_by where h.task_id = $1`,
  insert: `insert into task_holds (task_id, held_at, held_at_ms, held_by, restore_id) values ($1, $2, $3, $4, $5) on conflict (task_id) do nothing`,
  delete: `delete from task_holds where task_id = $1`,
} as const;

export function createPgHoldStore(db: PgDb): HoldStore {
  return {
    // Nested under another store's transaction (an audit entry's), the savepoint takes the lock too.
    writeTransaction: (fn) => writerTransaction(db, "compaction", fn),
    taskExists: async (taskId) => (await db.one(PG_HOLD_SQL.taskExists, [taskId])) !== null,
    readHold: (taskId) => db.one<TaskHoldRow>(PG_HOLD_SQL.read, [taskId]),
    insertHold: async (hold) => (await db.run(PG_HOLD_SQL.insert, [hold.taskId, hold.heldAt, hold.heldAtMs, hold.heldBy, hold.restoreId])) === 1,
    deleteHold: async (taskId) => (await db.run(PG_HOLD_SQL.delete, [taskId])) === 1,
  };
}
