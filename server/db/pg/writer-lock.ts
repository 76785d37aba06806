// SQLite's writer transactions take the database's write lock at the start
// (BEGIN IMMEDIATE), so check-then-write steps (first admin on an empty
// table, dedup before insert) never interleave. On PostgreSQL several app
// instances share the database: a transaction-scoped advisory lock per
// domain gives the same serialization, released at commit or rollback.
import type { PgDb, PgTransactionOptions } from "./pg-db";

export type WriterDomain = "auth" | "workspace" | "compaction" | "checkpoints";

// Stable keys (any constants shared by every instance).
export const WRITER_LOCK_KEYS: Record<WriterDomain, number> = { auth: 0x61757468, workspace: 0x776f726b, compaction: 0x636f6d70, checkpoints: 0x63686b70 };

/**
 * Runs `fn` in a transaction of `db` that first takes the domain's writer
 * lock, holding one pooled session for the whole callback; inside an open
 * transaction it joins it (a savepoint that takes this domain's lock too:
 * the outer one may be another domain's).
 */
export function writerTransaction<T>(db: PgDb, domain: WriterDomain, fn: () => Promise<T> | T, options?: Omit<PgTransactionOptions, "lock" | "snapshot">): Promise<T> {
  return db.transaction(fn, { ...options, lock: WRITER_LOCK_KEYS[domain] });
}
