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
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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
    // Retention: keyset pages of one session's messages in rowid order (the
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
  },
  (t) => [index("auth_sessions_user_idx").on(t.userId)],
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
  },
  (t) => [index("audit_events_at_idx").on(t.atMs), index("audit_events_kind_seq_idx").on(t.kind, t.seq)],
);
