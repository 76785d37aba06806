// The workspace's data access: tasks, sessions, turns, messages, queued
// messages and runs. Domain modules (import, export, message writes, reads)
// call these verbs only; every SQL statement lives in the implementation.
//
// Every verb returns a Promise (the asynchronous store boundary, #27):
// `writeTransaction` holds one connection for its whole async callback, so
// check-then-write steps inside it stay atomic across awaits, and nested
// calls of any store join it.
//
// Timestamps are passed as the text given; the implementation stores each
// with its parsed companion. Message metadata is JSON object text and stays
// text, byte for byte.
import type { ConversationMessage, TaskConversation, TaskListItem } from "@/lib/conversation/api";

export type TaskRecord = {
  id: string;
  title: string;
  state: string;
  createdAt: string | null;
  updatedAt: string | null;
  queuedForStep: boolean;
};

export type SessionRecord = {
  id: string;
  taskId: string;
  state: string;
  startedAt: string | null;
  updatedAt: string | null;
  completedAt: string | null;
};

export type TurnRecord = { id: string; sessionId: string; startedAt: string | null; completedAt: string | null };
export type QueuedMessageRecord = { id: string; sessionId: string; content: string; queuedAt: string | null };
export type RunRecord = { id: string; sessionId: string; state: string };

export type MessageRecord = {
  id: string;
  sessionId: string;
  turnId: string | null;
  authorType: string;
  type: string;
  content: string;
  /** JSON object text, stored byte-for-byte. */
  metadata: string;
  createdAt: string | null;
  updatedAt: string | null;
};

/** The kinds of workspace record, each with its own id space. */
export type RecordKind = "task" | "session" | "turn" | "message" | "queued message" | "run";

// The table that holds each kind of record, on every engine.
export const RECORD_TABLES: Record<RecordKind, string> = {
  task: "tasks",
  session: "task_sessions",
  turn: "turns",
  message: "messages",
  "queued message": "queued_messages",
  run: "runs",
};

/** What a message write needs to know about the stored row. */
export type StoredMessage = { rowid: number; sessionId: string; type: string; metadata: string };

/**
 * A task's hold as the fixture carries it (README, "Workspace fixture"):
 * when and by whom it was set, as stored. Held tasks are never compacted.
 */
export type HoldRecord = { taskId: string; heldAt: string; heldBy: string };

/** A task and everything below it, as stored (timestamps as text), in insertion order. */
export type TaskTree = {
  task: TaskRecord;
  /** The task's hold, or null when it is not held. */
  hold: Omit<HoldRecord, "taskId"> | null;
  sessions: Array<
    Omit<SessionRecord, "taskId"> & {
      turns: Omit<TurnRecord, "sessionId">[];
      messages: Omit<MessageRecord, "sessionId">[];
      queuedMessages: Omit<QueuedMessageRecord, "sessionId">[];
      runs: Omit<RunRecord, "sessionId">[];
    }
  >;
};

// Read rows have the shapes of the conversation view (required timestamps
// read back as text: a missing one was stored as "").
export type TaskListRow = TaskListItem;
export type TaskHeader = TaskConversation["task"];

/** A conversation row with the tool summary fields read out of its metadata (unknown when absent or unreadable). */
export type ConversationRow = Omit<ConversationMessage, "tool"> & {
  kind: unknown;
  title: unknown;
  command: unknown;
  exitCode: unknown;
  /** JSON type of the compaction marker, null when there is none. */
  markerType: string | null;
  removedAt: unknown;
};

/** The compaction guard's input for one metadata write (see server/compaction/write-guard). */
export type MetadataGuardInput = {
  messageId: string;
  type: string;
  sessionId: string;
  previous: string | null;
  next: string;
  toolCallId: string | null;
};

export type WorkspaceStore = {
  /** Runs `fn` in a writer transaction (taken at the start); nested calls, of any store, join it. */
  writeTransaction<T>(fn: (tx: WorkspaceStore) => Promise<T> | T): Promise<T>;

  recordExists(kind: RecordKind, id: string): Promise<boolean>;
  insertTask(task: TaskRecord): Promise<void>;
  insertSession(session: SessionRecord): Promise<void>;
  insertTurn(turn: TurnRecord): Promise<void>;
  insertQueuedMessage(queued: QueuedMessageRecord): Promise<void>;
  insertRun(run: RunRecord): Promise<void>;
  /** An imported hold (the task row exists already). */
  insertHold(hold: HoldRecord): Promise<void>;
  /** The session a turn belongs to, or null for an unknown turn. */
  sessionOfTurn(turnId: string): Promise<string | null>;

  /** Inserts a message whose metadata was already canonicalized and guarded. */
  insertMessage(message: MessageRecord & { toolCallId: string | null }): Promise<{ rowid: number }>;
  readMessage(messageId: string): Promise<StoredMessage | null>;
  updateMessage(update: { rowid: number; metadata: string; toolCallId: string | null; content: string | null; updatedAt: string | null }): Promise<void>;
  /**
   * The text to store for a JSON object, minified without touching number
   * literals, string escapes or key order; null when it is not a JSON object.
   */
  canonicalJsonObject(text: string): Promise<string | null>;
  /** `tool_call_id` of metadata text when it is a string, else null. */
  toolCallIdOf(metadata: string): Promise<string | null>;
  /** The compaction replacement-write guard, evaluated inside the current writer transaction. */
  guardMetadata(write: MetadataGuardInput): Promise<string>;

  listTasks(page: { limit: number; offset: number }): Promise<{ tasks: TaskListRow[]; total: number }>;
  readTaskHeader(taskId: string): Promise<TaskHeader | null>;
  /** Messages of a task in conversation order, at most `limit`. */
  listConversationRows(taskId: string, limit: number): Promise<ConversationRow[]>;
  /** One consistent snapshot of a task and its rows, or null for an unknown task. */
  readTaskTree(taskId: string): Promise<TaskTree | null>;
};
