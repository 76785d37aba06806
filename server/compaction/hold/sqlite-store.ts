// The SQLite implementation of the HoldStore, on the asynchronous database
// (writer queue + read connection, server/db/sqlite-db.ts).
import "server-only";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { HoldStore, TaskHoldRow } from "./store";

export const HOLD_SQL = {
  taskExists: `select 1 as hit from tasks where id = ?`,
  read: `select h.task_id as taskId, h.held_at as heldAt, h.held_at_ms as heldAtMs, h.held_by as heldBy, u.email as heldByEmail, h.restore_id as restoreId
         from task_holds h left join users u on u.id = h.held_by where h.task_id = ?`,
  insert: `insert into task_holds (task_id, held_at, held_at_ms, held_by, restore_id) values (?, ?, ?, ?, ?) on conflict (task_id) do nothing`,
  delete: `delete from task_holds where task_id = ?`,
} as const;

export function createSqliteHoldStore(db: SqliteDb): HoldStore {
  return {
    writeTransaction: (fn) => db.transaction(fn),
    taskExists: async (taskId) => statement(db.reading(), HOLD_SQL.taskExists).get(taskId) !== undefined,
    readHold: async (taskId) => (statement(db.reading(), HOLD_SQL.read).get(taskId) as TaskHoldRow | undefined) ?? null,
    insertHold: (hold) =>
      db.write((writer) => statement(writer, HOLD_SQL.insert).run(hold.taskId, hold.heldAt, hold.heldAtMs, hold.heldBy, hold.restoreId).changes === 1),
    deleteHold: (taskId) => db.write((writer) => statement(writer, HOLD_SQL.delete).run(taskId).changes === 1),
  };
}
