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
import { bigint, bigserial, boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

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
  },
  (t) => [index("auth_sessions_user_idx").on(t.userId)],
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
  },
  (t) => [index("audit_events_at_idx").on(t.atMs), index("audit_events_kind_seq_idx").on(t.kind, t.seq)],
);
