// Drizzle schema of the PostgreSQL engine: the same tables, columns and
// meanings as the SQLite schema (schema.ts, whose comments explain the
// timestamp text + `_ms` companions). Differences, each for a reason:
// - `seq` identity columns give tasks, sessions, turns, queued messages and
//   runs the insertion order SQLite's implicit rowid gives (exports list
//   rows in the order they were imported);
// - epoch-millisecond columns are bigint (beyond int4);
// - message metadata is `text`, never jsonb (jsonb reorders keys, drops
//   duplicates and rewrites numbers; exports must be byte-exact);
// - indexes that SQLite extends with the rowid implicitly name it.
// drizzle-kit generates drizzle/pg from this file (drizzle.pg.config.ts).
import { bigint, bigserial, boolean, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

const ms = (name: string) => bigint(name, { mode: "number" });
const seq = () => bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull();

export const tasks = pgTable("tasks", {
  id: text("id").primaryKey(),
  seq: seq(),
  title: text("title").notNull(),
  state: text("state").notNull(),
  createdAt: text("created_at").notNull(),
  createdAtMs: ms("created_at_ms"),
  updatedAt: text("updated_at").notNull(),
  updatedAtMs: ms("updated_at_ms"),
  queuedForStep: boolean("queued_for_step").notNull().default(false),
});

export const taskSessions = pgTable(
  "task_sessions",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    state: text("state").notNull(),
    startedAt: text("started_at"),
    startedAtMs: ms("started_at_ms"),
    updatedAt: text("updated_at").notNull(),
    updatedAtMs: ms("updated_at_ms"),
    completedAt: text("completed_at"),
    completedAtMs: ms("completed_at_ms"),
  },
  (t) => [index("task_sessions_task_idx").on(t.taskId, t.seq)],
);

export const turns = pgTable(
  "turns",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    startedAt: text("started_at").notNull(),
    startedAtMs: ms("started_at_ms"),
    completedAt: text("completed_at"),
    completedAtMs: ms("completed_at_ms"),
  },
  (t) => [index("turns_session_idx").on(t.sessionId, t.seq)],
);

export const messages = pgTable(
  "messages",
  {
    rowid: bigserial("rowid", { mode: "number" }).primaryKey(),
    id: text("id").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    turnId: text("turn_id").references(() => turns.id, { onDelete: "set null" }),
    authorType: text("author_type").notNull(),
    type: text("type").notNull(),
    content: text("content").notNull().default(""),
    metadata: text("metadata").notNull().default("{}"),
    toolCallId: text("tool_call_id"),
    createdAt: text("created_at").notNull(),
    createdAtMs: ms("created_at_ms"),
    updatedAt: text("updated_at").notNull(),
    updatedAtMs: ms("updated_at_ms"),
  },
  (t) => [
    uniqueIndex("messages_id_uidx").on(t.id),
    index("messages_session_created_at_idx").on(t.sessionId, t.createdAtMs),
    index("messages_session_updated_at_idx").on(t.sessionId, t.updatedAtMs),
    index("messages_session_type_idx").on(t.sessionId, t.type),
    index("messages_session_tool_call_idx").on(t.sessionId, t.toolCallId),
    index("messages_session_rowid_idx").on(t.sessionId, t.rowid),
    index("messages_session_turn_idx").on(t.sessionId, t.turnId),
  ],
);

export const queuedMessages = pgTable(
  "queued_messages",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    queuedAt: text("queued_at").notNull(),
    queuedAtMs: ms("queued_at_ms"),
  },
  (t) => [index("queued_messages_session_idx").on(t.sessionId, t.seq)],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    seq: seq(),
    sessionId: text("session_id")
      .notNull()
      .references(() => taskSessions.id, { onDelete: "cascade" }),
    state: text("state").notNull(),
  },
  (t) => [index("runs_session_idx").on(t.sessionId, t.seq)],
);

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  role: text("role", { enum: ["admin", "viewer"] }).notNull(),
  passwordHash: text("password_hash").notNull(),
  createdAt: text("created_at").notNull(),
  disabledAtMs: ms("disabled_at_ms"),
  mustChangePassword: boolean("must_change_password").notNull().default(false),
});

export const authSessions = pgTable(
  "auth_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAtMs: ms("created_at_ms").notNull(),
    expiresAtMs: ms("expires_at_ms").notNull(),
    revokedAtMs: ms("revoked_at_ms"),
    id: text("id"),
    lastSeenAtMs: ms("last_seen_at_ms"),
    client: text("client"),
  },
  (t) => [index("auth_sessions_user_idx").on(t.userId), uniqueIndex("auth_sessions_id_idx").on(t.id)],
);

export const loginThrottle = pgTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: bigint("failures", { mode: "number" }).notNull(),
  windowStartMs: ms("window_start_ms").notNull(),
  lockedUntilMs: ms("locked_until_ms"),
});

export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAtMs: ms("updated_at_ms").notNull(),
});

export const auditEvents = pgTable(
  "audit_events",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    atMs: ms("at_ms").notNull(),
    actor: text("actor").notNull(),
    kind: text("kind").notNull(),
    result: text("result").notNull(),
    errorCode: text("error_code"),
    detail: text("detail").notNull(),
    // See server/db/schema.ts: aggregated entries (refused sign-ins).
    repeatCount: bigint("repeat_count", { mode: "number" }).notNull().default(1),
    lastAtMs: ms("last_at_ms"),
    aggregateKey: text("aggregate_key"),
  },
  (t) => [
    index("audit_events_at_idx").on(t.atMs),
    index("audit_events_kind_seq_idx").on(t.kind, t.seq),
    uniqueIndex("audit_events_aggregate_uidx").on(t.aggregateKey),
  ],
);

export const checkpointRuns = pgTable(
  "checkpoint_runs",
  {
    threadId: text("thread_id").notNull(),
    runId: text("run_id").notNull(),
    seq: integer("seq").notNull(),
    status: text("status").notNull(),
    durationMs: doublePrecision("duration_ms"),
    messageIds: text("message_ids").notNull(),
    handleId: text("handle_id"),
    leafId: text("leaf_id"),
    leafDigest: text("leaf_digest"),
    handleDigest: text("handle_digest"),
    issuedAtMs: ms("issued_at_ms").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.runId] }),
    index("checkpoint_runs_seq_idx").on(t.threadId, t.seq),
    index("checkpoint_runs_leaf_idx").on(t.threadId, t.leafId),
    index("checkpoint_runs_handle_idx").on(t.threadId, t.handleId),
  ],
);

// See schema.ts: bumped by every retention deletion in its transaction.
export const checkpointEpochs = pgTable("checkpoint_epochs", {
  threadId: text("thread_id").primaryKey(),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
});

export const taskHolds = pgTable("task_holds", {
  taskId: text("task_id")
    .primaryKey()
    .references(() => tasks.id, { onDelete: "cascade" }),
  heldAt: text("held_at").notNull(),
  heldAtMs: ms("held_at_ms"),
  heldBy: text("held_by").notNull(),
  restoreId: text("restore_id"),
});

export const payloadRestores = pgTable(
  "payload_restores",
  {
    id: text("id").primaryKey(),
    taskId: text("task_id").notNull(),
    backupName: text("backup_name").notNull(),
    backupSha256: text("backup_sha256"),
    actor: text("actor").notNull(),
    hold: boolean("hold").notNull(),
    state: text("state").notNull(),
    startedAtMs: ms("started_at_ms").notNull(),
    finishedAtMs: ms("finished_at_ms"),
    runnerId: text("runner_id"),
    restoredMessages: bigint("restored_messages", { mode: "number" }).notNull().default(0),
    restoredBytes: bigint("restored_bytes", { mode: "number" }).notNull().default(0),
    skipped: text("skipped").notNull().default("{}"),
    errorCode: text("error_code"),
  },
  (t) => [index("payload_restores_task_idx").on(t.taskId, t.startedAtMs)],
);

export const maintenancePolicies = pgTable("maintenance_policies", {
  kind: text("kind").primaryKey(),
  revision: integer("revision").notNull(),
  record: text("record").notNull(),
  updatedAtMs: ms("updated_at_ms").notNull(),
});

export const expiredThreads = pgTable(
  "expired_threads",
  {
    threadId: text("thread_id").primaryKey(),
    state: text("state").notNull(),
    expiredAtMs: ms("expired_at_ms").notNull(),
    lastActivityMs: ms("last_activity_ms"),
    cutoffMs: ms("cutoff_ms").notNull(),
    operationId: text("operation_id").notNull(),
    policyRevision: integer("policy_revision").notNull(),
    checkpoints: bigint("checkpoints", { mode: "number" }).notNull(),
    writes: bigint("writes", { mode: "number" }).notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    finishedAtMs: ms("finished_at_ms"),
  },
  (t) => [index("expired_threads_state_idx").on(t.state, t.threadId)],
);

// Byte counts go past int4 like the epoch milliseconds.
const byteCount = (name: string) => bigint(name, { mode: "number" });

export const storageSamples = pgTable(
  "storage_samples",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    atMs: ms("at_ms").notNull(),
    sampleKey: text("sample_key").notNull(),
    trigger: text("trigger").notNull(),
    operationId: text("operation_id"),
    method: text("method").notNull(),
    totalBytes: byteCount("total_bytes").notNull(),
    usedBytes: byteCount("used_bytes").notNull(),
    freeBytes: byteCount("free_bytes").notNull(),
    messagesBytes: byteCount("messages_bytes").notNull(),
    checkpointsBytes: byteCount("checkpoints_bytes").notNull(),
    otherBytes: byteCount("other_bytes").notNull(),
    reclaimedBytes: byteCount("reclaimed_bytes"),
    diskFreeBytes: byteCount("disk_free_bytes"),
    tables: text("tables").notNull(),
  },
  (t) => [uniqueIndex("storage_samples_key_uidx").on(t.sampleKey), index("storage_samples_at_idx").on(t.atMs)],
);
