// SQLite's writer transactions take the database's write lock at the start
// (BEGIN IMMEDIATE), so check-then-write steps (first admin on an empty
// table, dedup before insert) never interleave. On PostgreSQL several app
// instances share the database: a transaction-scoped advisory lock per
// domain gives the same serialization, released at commit or rollback.
import type { SqlClient } from "./client";

export type WriterDomain = "auth" | "workspace";

// Stable keys (any constants shared by every instance).
const KEYS: Record<WriterDomain, number> = { auth: 0x61757468, workspace: 0x776f726b };

/** Runs `fn` in a transaction that first takes the domain's writer lock; nested calls join the outer transaction. */
export function inWriterTransaction<T>(client: SqlClient, domain: WriterDomain, fn: () => T): T {
  if (client.inTransaction) return client.transaction(() => fn());
  return client.transaction(() => {
    client.one(`select pg_advisory_xact_lock($1)`, [KEYS[domain]]);
    return fn();
  });
}
