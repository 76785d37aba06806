// SQLite's writer transactions take the database's write lock at the start
// (BEGIN IMMEDIATE), so check-then-write steps (first admin on an empty
// table, dedup before insert) never interleave. On PostgreSQL several app
// instances share the database: a transaction-scoped advisory lock per
// domain gives the same serialization, released at commit or rollback.
import type { SqlClient, TransactionOptions } from "./client";
import type { PgDb, PgTransactionOptions } from "./pg-db";

export type WriterDomain = "auth" | "workspace" | "compaction" | "checkpoints";

// Stable keys (any constants shared by every instance).
export const WRITER_LOCK_KEYS: Record<WriterDomain, number> = { auth: 0x61757468, workspace: 0x776f726b, compaction: 0x636f6d70, checkpoints: 0x63686b70 };

/**
 * @deprecated The synchronous client's form, kept only while the compaction
 * store is still on SqlClient; converted stores use writerTransaction
 * (PgDb.transaction with `lock`).
 *
 * Runs `fn` in a transaction that first takes the domain's writer lock;
 * nested calls join the outer transaction (as a savepoint). `options` set a
 * top-level transaction's own statement and lock timeouts (`set local`), which bound
 * the wait for the writer lock too.
 */
export function inWriterTransaction<T>(client: SqlClient, domain: WriterDomain, fn: () => T, options?: TransactionOptions): T {
  // A savepoint keeps the outer transaction's timeouts (a `set local` there would outlive it).
  if (client.inTransaction) return client.transaction(() => fn());
  return client.transaction(() => {
    client.one(`select pg_advisory_xact_lock($1)`, [WRITER_LOCK_KEYS[domain]]);
    return fn();
  }, options);
}

/**
 * The same on the asynchronous database: `fn` runs in a transaction of `db`
 * that first takes the domain's writer lock, holding one pooled session for
 * the whole callback; inside an open transaction it joins it (a savepoint
 * that takes this domain's lock too: the outer one may be another domain's).
 */
export function writerTransaction<T>(db: PgDb, domain: WriterDomain, fn: () => Promise<T> | T, options?: Omit<PgTransactionOptions, "lock" | "snapshot">): Promise<T> {
  return db.transaction(fn, { ...options, lock: WRITER_LOCK_KEYS[domain] });
}
