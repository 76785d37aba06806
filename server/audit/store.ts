// The audit domain's data access: one append-only table of who did what,
// when and how it ended. A caller inserts its audit row inside the writer
// transaction of the change it records: a transaction of any store of the
// runtime joins the one already open in the same async context.
export type AuditResult = "ok" | "failed";

export type AuditInsert = {
  atMs: number;
  actor: string;
  kind: string;
  result: AuditResult;
  errorCode: string | null;
  /** JSON text of the allowlisted detail. */
  detail: string;
};

export type AuditRow = AuditInsert & { seq: number; actorEmail: string | null; repeatCount: number; lastAtMs: number | null };

/** Events counted into one row: the first insert creates it, later ones add to its count. */
export type AuditAggregate = AuditInsert & {
  /** Kind, actor, client and window: what makes events the same entry. */
  aggregateKey: string;
  /** How many events this call adds (at least 1). */
  count: number;
  /** The latest of them. */
  lastAtMs: number;
};

export type AuditStore = {
  /** Runs `fn` in a writer transaction (taken at the start); nested calls, of any store, join it. */
  writeTransaction<T>(fn: (tx: AuditStore) => Promise<T> | T): Promise<T>;
  insert(entry: AuditInsert): Promise<void>;
  /** Creates the aggregated row of `aggregateKey` or adds `count` to it (one statement, race-free across instances). */
  addToAggregate(entry: AuditAggregate): Promise<void>;
  /** Newest first, strictly older than `beforeSeq` when given, of one kind when given. */
  list(options: { beforeSeq: number | null; kind: string | null; limit: number }): Promise<AuditRow[]>;
  /** Deletes entries older than `beforeMs`; returns how many. */
  prune(options: { beforeMs: number }): Promise<number>;
};
