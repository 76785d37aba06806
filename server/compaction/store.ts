// The one data-access contract of Messages compaction: every read and write
// the domain needs, as typed verbs. The engine implementations live in
// ./store/ and own every SQL statement; domain modules see only this type.
//
// Asynchronous on both engines (ARCHITECTURE.md, "The data layer"): every
// verb returns a Promise, and `writeTransaction(async (tx) => ...)` holds one
// connection for its whole callback, so a cleanup batch re-checks its gates
// and writes in ONE writer transaction across its awaits. The SQLite verbs
// are written as synchronous functions over one connection (`CompactionVerbs`)
// and lifted: each runs its statements in one step.
//
// `rowid` below is an opaque, ordered cursor value of a message (unique,
// increasing with insertion); callers only compare and store it.
import "server-only";
import type { StoredEncoding } from "./reducer/reducer";

/** Message types that can carry a compactable tool payload. */
export const TOOL_MESSAGE_TYPES = ["tool_call", "tool_edit", "tool_read", "tool_execute", "tool_search"] as const;

/** Upper cursors captured when a pass starts: rows written later are never chased. */
export type PassBounds = { upperTaskId: string | null; upperMessageRowid: number | null };

/**
 * A tool row's stored size. `notText`: the stored value is not text (a BLOB,
 * or NULL in a table without the NOT NULL constraint): never read, never
 * rewritten, counted `not_text`.
 */
export type RowHeader = { rowid: number; id: string; type: string; bytes: number; notText?: boolean };
/**
 * A row's stored metadata: null when the value is not text (a BLOB or NULL,
 * skipped `not_text`); otherwise a string in `encoding` ("bytes" when the
 * stored text is not valid UTF-8: one char per stored byte, see
 * StoredEncoding), so the bytes written back are exactly the bytes read.
 */
export type RowBody = RowHeader & { metadata: string | null; encoding: StoredEncoding; updatedAt: string };

/**
 * What SQL's JSON functions found in a tool row, without its payload ever
 * reaching JavaScript (see reducer/sql-removal.ts for how it is judged).
 * `skeleton` is the row with the kind's payload paths and `result` removed.
 */
export type SqlRowFacts = {
  kind: string;
  /** Repeated keys in the root, `normalized`, the kind's body or its payload container. */
  duplicateKeys: number;
  hasMarker: boolean;
  provenance: boolean;
  /** String values of tool_name / toolName (root) and name / tool_name (body). */
  names: string[];
  resultType: string | null;
  /** json_type of the body's `output` (judged for generic only). */
  outputType: string | null;
  /** Payload paths present (dotted, as in removed_fields), each with its value's rendered byte length. */
  present: Array<{ path: string; valueBytes: number }>;
  rootMembers: number;
  containerMembers: number;
  /**
   * modify_file whose `mutations` is an array: each item in order, null for
   * an item that is not an object (absent otherwise; then no wildcard path
   * can match).
   */
  mutations?: Array<MutationFacts | null>;
  skeleton: string;
  skeletonBytes: number;
};

/** One object item of modify_file's `mutations`: its members, repeated keys and the payload fields present (wildcard path, value bytes). */
export type MutationFacts = { members: number; repeats: number; present: Array<{ path: string; valueBytes: number }> };

/** A row's header, its version and, when SQL could judge it, its facts (null: the JS reducer decides). */
export type RowFacts = RowHeader & { updatedAt: string; facts: SqlRowFacts | null };

/** A reduced row written when its version (updated_at text and byte length) is unchanged; `next` in `encoding` (default utf8). */
export type VersionedWrite = { rowid: number; updatedAt: string; bytes: number; next: string; encoding?: StoredEncoding };

/** A reduced row to write back only if its stored bytes still equal `observed` (both in `encoding`, default utf8). */
export type GuardedWrite = { rowid: number; observed: string; next: string; encoding?: StoredEncoding };

/** One row of a batch's rewrite: guarded by `observed` when set (GuardedWrite), else by its version (VersionedWrite). */
export type BatchWrite = { rowid: number; observed: string | null; updatedAt: string; bytes: number; next: string; encoding?: StoredEncoding };

export type TaskActivityRow = {
  state: string;
  createdAt: string;
  createdAtMs: number | null;
  updatedAt: string;
  updatedAtMs: number | null;
  queuedForStep: number;
};

export type SessionActivityRow = {
  id: string;
  state: string;
  startedAt: string | null;
  startedAtMs: number | null;
  updatedAt: string;
  updatedAtMs: number | null;
  completedAt: string | null;
  completedAtMs: number | null;
};

/**
 * The newest message and turn rowids of a session (null: none). Read before
 * a task's full probe, it lets the in-batch re-check prove in constant time
 * that no message or turn was added since the probe ran.
 */
export type SessionWatermark = { maxMessageRowid: number | null; maxTurnRowid: number | null };

/** One session's turns: open ones, unparseable stamps, latest start and completion. */
export type TurnSummary = { open: number; invalid: number; maxStarted: number | null; maxCompleted: number | null };

export type WriteTransactionOptions = {
  /**
   * A cleanup batch's deadline. PostgreSQL enforces it as the transaction's
   * statement_timeout (an overrun rolls back and throws
   * StatementDeadlineError); SQLite's batch checks elapsed time itself.
   */
  deadlineMs?: number;
};

/** The verbs of the store as synchronous functions over one connection (how the SQLite implementation writes them). */
export type CompactionVerbs = {

  /** The stored text of the compaction settings record, or null when absent. */
  readRecordText(): string | null;
  writeRecordText(options: { text: string; nowMs: number }): void;
  /** Changes whenever the database schema changes (a migration, a rebuild): cursors from before are void. */
  readSchemaVersion(): number;

  captureBounds(): PassBounds;
  /** Task ids after `afterTaskId` (null: from the first) up to `upperTaskId`, in id order. */
  listTaskIds(options: { afterTaskId: string | null; upperTaskId: string; limit: number }): string[];
  /** A task's session ids after `afterSessionId` (null: from the first), in id order. */
  listSessionIds(options: { taskId: string; afterSessionId: string | null; limit: number }): string[];
  /** Headers (stored byte length, no body) of a session's tool rows after `afterRowid` up to `upperRowid`. */
  listToolRowHeaders(options: { sessionId: string; afterRowid: number | null; upperRowid: number; limit: number }): RowHeader[];
  /** Bodies of `rows` still in the session, with their version; a row deleted meanwhile is absent. */
  readToolRowBodies(options: { sessionId: string; rows: readonly RowHeader[] }): RowBody[];
  /**
   * Locks the rows a batch is about to rewrite until its transaction ends
   * (PostgreSQL `for update`; a no-op on SQLite, whose writer transaction
   * already excludes every other writer). Optional so other implementations
   * need not change.
   */
  lockRowsForRewrite?(rowids: readonly number[]): void;
  /**
   * Writes `row.next` when the stored metadata still equals `row.observed`;
   * false when it does not. Throws WriteRefusedError (cleanup/write-refused.ts)
   * when the database refuses this row's write (a trigger, a constraint).
   */
  replaceMetadataIfUnchanged(row: GuardedWrite): boolean;
  /**
   * SQL-side facts of `rows` still in the session (a row deleted meanwhile is
   * absent). An engine may answer `facts: null` for any row: the caller then
   * reads that body and runs the JS reducer.
   */
  readToolRowFacts(options: { sessionId: string; rows: readonly RowHeader[] }): RowFacts[];
  /**
   * False when readToolRowFacts never judges a row (PostgreSQL: no JSON
   * function keeps the text exact, so every row goes to the JS reducer): a
   * page then reads its bodies without asking for the facts first (one
   * round trip less per page). Absent: true.
   */
  readonly judgesRowsInSql?: boolean;
  /**
   * True when a read outside a writer transaction runs on a session of its
   * own and sees only committed rows while another call's writer
   * transaction is open (PostgreSQL's pool): the cleanup pass then reads and
   * reduces its next batch while the previous one is written. Absent: false
   * (SQLite's pass thread has one connection).
   */
  readonly readsBesideWriter?: boolean;
  /** Writes `row.next` when the row's updated_at and byte length are unchanged; false when they are not. Throws WriteRefusedError as above. */
  replaceMetadataIfVersion(row: VersionedWrite): boolean;
  /**
   * A whole batch's rewrites at once, each row guarded as by the two verbs
   * above; returns the rowids written (the others no longer matched).
   * Throws WriteRefusedError naming the refused row, as they do. Optional:
   * PostgreSQL writes a batch in one statement (a round trip per row is what
   * a networked database cannot afford); SQLite's in-process statements
   * write row by row.
   */
  replaceMetadataBatch?(rows: readonly BatchWrite[]): Set<number>;

  readTaskActivity(taskId: string): TaskActivityRow | null;
  /** Whether an administrator put the task on hold (a row in task_holds). */
  isTaskHeld(taskId: string): boolean;
  listSessionActivity(taskId: string): SessionActivityRow[];
  summarizeTurns(sessionId: string): TurnSummary;
  latestMessageUpdate(sessionId: string): number | null;
  latestMessageCreation(sessionId: string): number | null;
  /** A message whose updated_at text did not parse (its instant is missing). */
  hasUnparsedMessageUpdate(sessionId: string): boolean;
  hasUnparsedMessageCreation(sessionId: string): boolean;
  /** A permission or clarification request still pending (unreadable metadata counts as pending). */
  hasPendingInput(sessionId: string): boolean;
  /** A message pointing at a turn of another session. */
  hasForeignTurnMessage(sessionId: string): boolean;
  hasQueuedMessage(sessionId: string): boolean;
  /** The state of a run of the session that has not finished, or null. */
  findUnfinishedRunState(sessionId: string): string | null;
  /** Newest message and turn rowids of the session (two index seeks; see SessionWatermark). */
  readSessionWatermark(sessionId: string): SessionWatermark;
  /**
   * Every probe above for one task and its sessions, read at once (one
   * snapshot) and answered from memory. Optional: PostgreSQL reads them in
   * one statement (a round trip per probe is what a networked database
   * cannot afford); SQLite's in-process probes run one by one, each stopping
   * the check as early as it can. `indexedOnly`: only the probes the
   * in-batch re-check asks (index seeks; no whole-session scan inside the
   * writer); the others are then asked one by one.
   */
  taskProbes?(taskId: string, options?: { indexedOnly?: boolean }): EligibilityVerbs;
  /** taskProbes of several tasks in one read (a batch's re-check of each of its tasks); the same options. */
  tasksProbes?(taskIds: readonly string[], options?: { indexedOnly?: boolean }): EligibilityVerbs;

  /** Metadata of the task's rows (any session of it) for `toolCallId` whose text contains `containing`. */
  listToolCallMetadata(options: { sessionId: string; toolCallId: string; containing: string }): string[];
};

/** A verb set whose every function returns a Promise of what the synchronous one returns. */
export type Promised<T> = {
  [K in keyof T]: NonNullable<T[K]> extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : T[K];
};

export type CompactionStore = Promised<CompactionVerbs> & {
  /**
   * Runs `fn` in one writer transaction (BEGIN IMMEDIATE on SQLite; the
   * compaction writer lock on PostgreSQL), holding one connection for the
   * whole callback; a rejection rolls everything back. A call inside an open
   * transaction joins it (as a savepoint), and so do the verbs of any store
   * called under the callback.
   */
  writeTransaction<T>(fn: (tx: CompactionStore) => Promise<T>, options?: WriteTransactionOptions): Promise<T>;
  /** True when called inside a writer transaction of this store's database. */
  inWriteTransaction(): boolean;
};

/** The task-activity probes of eligibility, as synchronous functions (the SQLite implementation). */
export type SyncEligibilityVerbs = Pick<
  CompactionVerbs,
  | "readTaskActivity"
  | "isTaskHeld"
  | "listSessionActivity"
  | "summarizeTurns"
  | "latestMessageUpdate"
  | "latestMessageCreation"
  | "hasUnparsedMessageUpdate"
  | "hasUnparsedMessageCreation"
  | "hasPendingInput"
  | "hasForeignTurnMessage"
  | "hasQueuedMessage"
  | "findUnfinishedRunState"
  | "readSessionWatermark"
>;

/** The task-activity probes of eligibility (both engines implement them as one group). */
export type EligibilityVerbs = Promised<SyncEligibilityVerbs>;
