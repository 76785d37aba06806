// Prepared statements cached per connection: imports and the demo seeder
// insert thousands of rows, and preparing each time would dominate.
import type { Statement } from "better-sqlite3";
import type { Sqlite } from "@/server/db/client";

const cache = new WeakMap<Sqlite, Map<string, Statement>>();

export function statement(sqlite: Sqlite, sql: string): Statement {
  let perConnection = cache.get(sqlite);
  if (!perConnection) {
    perConnection = new Map();
    cache.set(sqlite, perConnection);
  }
  let stmt = perConnection.get(sql);
  if (!stmt) {
    stmt = sqlite.prepare(sql);
    perConnection.set(sql, stmt);
  }
  return stmt;
}
