// Drizzle schema for the agent workspace store.
//
// Timestamps are stored exactly as given (RFC 3339 text with any offset, or
// even invalid text) because imports and exports must round-trip. Each
// timestamp has an `_ms` companion holding the parsed UTC instant, or NULL
// when the text is not a valid RFC 3339 timestamp. Eligibility compares the
// `_ms` columns chronologically and treats NULL as "invalid, protect the task"
// (see lib/time/rfc3339.ts, the only parser that fills them).
//
// LangGraph's SqliteSaver owns its own `checkpoints` and `writes` tables in
// the same file; nothing here may use those names.
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const tasks = sqliteTable("tasks", {
  id: text("id").primaryKey(),
  title: text("title").notNull(),
  state: text("state").notNull(),
  createdAt: text("created_at").notNull(),
  createdAtMs: integer("created_at_ms"),
  updatedAt: text("updated_at").notNull(),
  updatedAtMs: integer("updated_at_ms"),
  // Queued workflow admission: the task waits for a workflow step to start it.
  queuedForStep: integer("queued_for_step", { mode: "boolean" }).notNull().default(false),
});

export const taskSessions = sqliteTable(
  "task_sessions",
  {
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    state: text("state").notNull(),
    startedAt: text("started_at"),
    startedAtMs: integer("started_at_ms"),
    updatedAt: text("updated_at").notNull(),
    updatedAtMs: integer("updated_at_ms"),
    completedAt: text("completed_at"),
    completedAtMs: integer("completed_at_ms"),
  },
  (t) => [index("task_sessions_task_idx").on(t.taskId)],
);

export const turns = sqliteTable(
  "turns",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    startedAt: text("started_at").notNull(),
    startedAtMs: integer("started_at_ms"),
    // NULL means the turn is still open.
    completedAt: text("completed_at"),
    completedAtMs: integer("completed_at_ms"),
  },
  (t) => [index("turns_session_idx").on(t.sessionId)],
);

export const messages = sqliteTable(
  "messages",
  {
    // Explicit rowid alias: cleanup pages each session's messages by this key.
    rowid: integer("rowid").primaryKey(),
    id: text("id").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    turnId: text("turn_id").references(() => turns.id, { onDelete: "set null" }),
    authorType: text("author_type").notNull(),
    type: text("type").notNull(),
    content: text("content").notNull().default(""),
    // JSON text, stored byte-for-byte; never parsed with JSON.parse.
    metadata: text("metadata").notNull().default("{}"),
    // metadata.tool_call_id, kept in a column for dedup and replay refusal.
    toolCallId: text("tool_call_id"),
    createdAt: text("created_at").notNull(),
    createdAtMs: integer("created_at_ms"),
    updatedAt: text("updated_at").notNull(),
    updatedAtMs: integer("updated_at_ms"),
  },
  (t) => [
    uniqueIndex("messages_id_uidx").on(t.id),
    index("messages_session_created_at_idx").on(t.sessionId, t.createdAtMs),
    index("messages_session_updated_at_idx").on(t.sessionId, t.updatedAtMs),
    index("messages_session_type_idx").on(t.sessionId, t.type),
    index("messages_session_tool_call_idx").on(t.sessionId, t.toolCallId),
    // Compaction: keyset pages of one session's messages in rowid order (the
    // index entries are (session_id, rowid)), and the ownership probe that
    // finds a message whose turn belongs to another session without reading rows.
    index("messages_session_rowid_idx").on(t.sessionId),
    index("messages_session_turn_idx").on(t.sessionId, t.turnId),
  ],
);

export const queuedMessages = sqliteTable(
  "queued_messages",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    queuedAt: text("queued_at").notNull(),
    queuedAtMs: integer("queued_at_ms"),
  },
  (t) => [index("queued_messages_session_idx").on(t.sessionId)],
);

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    state: text("state").notNull(),
  },
  (t) => [index("runs_session_idx").on(t.sessionId)],
);

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  role: text("role", { enum: ["admin", "viewer"] }).notNull(),
  passwordHash: text("password_hash").notNull(),
  createdAt: text("created_at").notNull(),
  // Set while the account is disabled: no sign-in, no session answers.
  disabledAtMs: integer("disabled_at_ms"),
  // An admin set this password (reset, or an account made in the UI): the
  // user must choose their own before anything else.
  mustChangePassword: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
});

export const authSessions = sqliteTable(
  "auth_sessions",
  {
    // SHA-256 of the cookie token; the token itself is never stored.
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAtMs: integer("created_at_ms").notNull(),
    expiresAtMs: integer("expires_at_ms").notNull(),
    revokedAtMs: integer("revoked_at_ms"),
    // The id admins see and end a session by (the token hash never leaves the server).
    id: text("id"),
    // The idle timeout counts from here (updated at most once a minute).
    lastSeenAtMs: integer("last_seen_at_ms"),
    // "Firefox · Linux": a short label from the User-Agent, never the header itself.
    client: text("client"),
  },
  (t) => [index("auth_sessions_user_idx").on(t.userId), uniqueIndex("auth_sessions_id_idx").on(t.id)],
);

export const loginThrottle = sqliteTable("login_throttle", {
  // Normalized email or client address; one row per throttled key.
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  windowStartMs: integer("window_start_ms").notNull(),
  lockedUntilMs: integer("locked_until_ms"),
});

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  // Versioned JSON record owned by the feature that uses the key.
  value: text("value").notNull(),
  updatedAtMs: integer("updated_at_ms").notNull(),
});

export const auditEvents = sqliteTable(
  "audit_events",
  {
    // Insertion order doubles as the cursor of GET /api/v1/system/audit.
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    atMs: integer("at_ms").notNull(),
    // A user id, or "cli" / "system" for actions without a signed-in user.
    actor: text("actor").notNull(),
    kind: text("kind").notNull(),
    result: text("result", { enum: ["ok", "failed"] }).notNull(),
    errorCode: text("error_code"),
    // Small JSON of ids, counts and policy values; never payloads, titles or secrets.
    detail: text("detail").notNull(),
    // Aggregated entries (refused sign-ins): how many events one row stands
    // for, the latest one's time, and the key (kind, actor, client, window)
    // further events of the same kind are counted under instead of written.
    repeatCount: integer("repeat_count").notNull().default(1),
    lastAtMs: integer("last_at_ms"),
    aggregateKey: text("aggregate_key"),
  },
  (t) => [
    index("audit_events_at_idx").on(t.atMs),
    index("audit_events_kind_seq_idx").on(t.kind, t.seq),
    uniqueIndex("audit_events_aggregate_uidx").on(t.aggregateKey),
  ],
);

// One row per agent run on a checkpoint thread, beside LangGraph's own
// tables: the run history (what the duration leaf's metadata used to carry
// as ever-growing maps) and the handle the run handed out. Admission reads
// only the row of the head leaf, so its cost does not grow with the thread.
export const checkpointRuns = sqliteTable(
  "checkpoint_runs",
  {
    threadId: text("thread_id").notNull(),
    runId: text("run_id").notNull(),
    // Order of the runs on the thread, 1-based (the history lists runs by it).
    seq: integer("seq").notNull(),
    status: text("status", { enum: ["success", "error", "cancelled"] }).notNull(),
    // Successful runs only (a failed run has no duration leaf).
    durationMs: real("duration_ms"),
    // JSON array of the message ids the run minted.
    messageIds: text("message_ids").notNull(),
    // The state checkpoint the run answered as its checkpointId (never a duration leaf).
    handleId: text("handle_id"),
    // The run's duration-only leaf and the channel_versions digests of the
    // leaf and of its parent (the handle) as written: admission's proof.
    leafId: text("leaf_id"),
    leafDigest: text("leaf_digest"),
    handleDigest: text("handle_digest"),
    // When the handle was issued; CHECKPOINT_HANDLE_TTL_DAYS counts from here.
    issuedAtMs: integer("issued_at_ms").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.runId] }),
    index("checkpoint_runs_seq_idx").on(t.threadId, t.seq),
    index("checkpoint_runs_leaf_idx").on(t.threadId, t.leafId),
    index("checkpoint_runs_handle_idx").on(t.threadId, t.handleId),
  ],
);

// A per-thread counter every retention deletion of a checkpoint (admission's
// leaf, Clean up's leaves, siblings and grafted links) bumps in the deletion's
// own transaction. Reads are not under the thread lock: a read that failed
// or answered while the counter moved reads once more, whichever process
// (another app instance, the CLI) deleted.
export const checkpointEpochs = sqliteTable("checkpoint_epochs", {
  threadId: text("thread_id").primaryKey(),
  epoch: integer("epoch").notNull(),
});

// A task an administrator keeps out of Messages compaction (a legal hold,
// an incident review): eligibility skips it as `held` while the row exists.
// Who set it and when are kept; a per-task payload restore sets it too
// (restore_id names that restore) unless the administrator opted out.
export const taskHolds = sqliteTable("task_holds", {
  taskId: text("task_id")
    .primaryKey()
    .references(() => tasks.id, { onDelete: "cascade" }),
  // RFC 3339 text as set (or imported) with its parsed companion.
  heldAt: text("held_at").notNull(),
  heldAtMs: integer("held_at_ms"),
  // A user id, or "cli".
  heldBy: text("held_by").notNull(),
  restoreId: text("restore_id"),
});

// One row per per-task payload restore from a backup: who restored which
// task from which backup, its state and its counts. Each batch commits its
// restored rows and these counts together, so the counts never run ahead
// of (or behind) the rows.
export const payloadRestores = sqliteTable(
  "payload_restores",
  {
    id: text("id").primaryKey(),
    taskId: text("task_id").notNull(),
    backupName: text("backup_name").notNull(),
    // SHA-256 of the backup file as verified before the first row was read.
    backupSha256: text("backup_sha256"),
    actor: text("actor").notNull(),
    // Whether the restore puts the task on hold (the default).
    hold: integer("hold", { mode: "boolean" }).notNull(),
    state: text("state", { enum: ["running", "succeeded", "partial", "failed"] }).notNull(),
    startedAtMs: integer("started_at_ms").notNull(),
    finishedAtMs: integer("finished_at_ms"),
    // Heartbeat of the process running it: a running restore whose runner died is recognised as interrupted.
    runnerId: text("runner_id"),
    restoredMessages: integer("restored_messages").notNull().default(0),
    restoredBytes: integer("restored_bytes").notNull().default(0),
    // JSON object of message counts by reason they were not restored.
    skipped: text("skipped").notNull().default("{}"),
    errorCode: text("error_code"),
  },
  (t) => [index("payload_restores_task_idx").on(t.taskId, t.startedAtMs)],
);

// The policies of scheduled checkpoint maintenance, one row per kind
// (`checkpoint_cleanup`: the daily run of the retention engine;
// `thread_expiry`: deleting threads idle for longer than a period). `record`
// is the strict JSON of lib/checkpoints/maintenance-api.ts (policy, its
// preparation and the runtime state a restart resumes from); `revision`
// mirrors the policy's revision so a save is a compare-and-set on it.
export const maintenancePolicies = sqliteTable("maintenance_policies", {
  kind: text("kind", { enum: ["checkpoint_cleanup", "thread_expiry"] }).primaryKey(),
  revision: integer("revision").notNull(),
  record: text("record").notNull(),
  updatedAtMs: integer("updated_at_ms").notNull(),
});

// The tombstone of an expired thread: written (state `deleting`) in the same
// transaction that re-checks the thread is still idle, before any of its
// rows go, so from that commit on the thread and its run handles answer 410
// thread_expired; its rows are then deleted in bounded batches and the
// tombstone marked `expired`. Counts are what the thread held when expired.
export const expiredThreads = sqliteTable(
  "expired_threads",
  {
    threadId: text("thread_id").primaryKey(),
    state: text("state", { enum: ["deleting", "expired"] }).notNull(),
    expiredAtMs: integer("expired_at_ms").notNull(),
    // The newest of its last run and its newest checkpoint (null: only the cutoff is known).
    lastActivityMs: integer("last_activity_ms"),
    cutoffMs: integer("cutoff_ms").notNull(),
    operationId: text("operation_id").notNull(),
    policyRevision: integer("policy_revision").notNull(),
    checkpoints: integer("checkpoints").notNull(),
    writes: integer("writes").notNull(),
    bytes: integer("bytes").notNull(),
    finishedAtMs: integer("finished_at_ms"),
  },
  (t) => [index("expired_threads_state_idx").on(t.state, t.threadId)],
);

// The storage history: one small row per sample of the database's size by
// table (taken daily and after each maintenance operation), kept 400 days.
// `sample_key` makes a sample idempotent: one per UTC day for the daily
// sample, one per operation otherwise, so a second instance or a repeated
// event inserts nothing. `tables` is compact JSON [[name, rows, bytes], ...]
// (table plus its indexes); the area columns are its sums, kept beside it so
// the chart reads a few integers per sample.
export const storageSamples = sqliteTable(
  "storage_samples",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    atMs: integer("at_ms").notNull(),
    sampleKey: text("sample_key").notNull(),
    trigger: text("trigger").notNull(),
    operationId: text("operation_id"),
    // How the sizes were read: dbstat, page_counts (no dbstat) or catalog (PostgreSQL).
    method: text("method").notNull(),
    totalBytes: integer("total_bytes").notNull(),
    usedBytes: integer("used_bytes").notNull(),
    freeBytes: integer("free_bytes").notNull(),
    messagesBytes: integer("messages_bytes").notNull(),
    checkpointsBytes: integer("checkpoints_bytes").notNull(),
    otherBytes: integer("other_bytes").notNull(),
    // What the operation reported giving back (payload bytes, freed file bytes); null for daily samples.
    reclaimedBytes: integer("reclaimed_bytes"),
    // Space left on the file system holding the database (SQLite); null when unknown.
    diskFreeBytes: integer("disk_free_bytes"),
    tables: text("tables").notNull(),
  },
  (t) => [uniqueIndex("storage_samples_key_uidx").on(t.sampleKey), index("storage_samples_at_idx").on(t.atMs)],
);
