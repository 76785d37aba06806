// The audit domain's data access: one append-only table of who did what,
// when and how it ended. Verbs are synchronous like every store, so a
// caller can insert its audit row inside the writer transaction of the
// change it records (the stores of a runtime share one connection).
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

export type AuditRow = AuditInsert & { seq: number; actorEmail: string | null };

export type AuditStore = {
  /** Runs `fn` in a writer transaction (taken at the start); nested calls, of any store, join it. */
  writeTransaction<T>(fn: (tx: AuditStore) => T): T;
  insert(entry: AuditInsert): void;
  /** Newest first, strictly older than `beforeSeq` when given, of one kind when given. */
  list(options: { beforeSeq: number | null; kind: string | null; limit: number }): AuditRow[];
  /** Deletes entries older than `beforeMs`; returns how many. */
  prune(options: { beforeMs: number }): number;
};
