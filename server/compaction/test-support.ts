// Test-only builders that write workspace rows straight into a real SQLite
// file (no mocks). Timestamps get their `_ms` companion from the one parser.
import type { Sqlite } from "@/server/db/client";
import { testDbOf } from "@/server/db/test-db";
import { formatUtc, parseRfc3339 } from "@/lib/time/rfc3339";
import type { CompactionAge } from "@/lib/compaction/policy";
import { parseCompactionRecord, updateCompactionRecord, type CompactionRead } from "./policy/record";
import { createDefaultRecord } from "./policy/policy-schema";
import type { CompactionStore } from "./store";
import { createSqliteCompactionStore, sqliteCompactionVerbs } from "./store/sqlite-store";

export const OLD = "2025-01-01T00:00:00Z";
export const CUTOFF_MS = Date.UTC(2025, 6, 1); // 2025-07-01T00:00:00Z
export const RECENT = "2025-08-01T00:00:00Z";
/** "Now" of pass tests: one week after it, the cutoff is CUTOFF_MS. */
export const NOW_MS = CUTOFF_MS + 7 * 86_400_000;

type TaskInput = { id: string; state?: string; createdAt?: string; updatedAt?: string; queuedForStep?: boolean };
type SessionInput = {
  id: string;
  taskId: string;
  state?: string;
  startedAt?: string | null;
  updatedAt?: string;
  completedAt?: string | null;
};
type TurnInput = { id: string; sessionId: string; startedAt?: string; completedAt?: string | null };
type MessageInput = {
  id: string;
  sessionId: string;
  turnId?: string | null;
  type?: string;
  metadata?: string;
  createdAt?: string;
  updatedAt?: string;
};

export function insertTask(sqlite: Sqlite, t: TaskInput): void {
  const createdAt = t.createdAt ?? OLD;
  const updatedAt = t.updatedAt ?? OLD;
  sqlite
    .prepare(
      `insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step)
       values (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(t.id, `title ${t.id}`, t.state ?? "COMPLETED", createdAt, parseRfc3339(createdAt), updatedAt, parseRfc3339(updatedAt), t.queuedForStep ? 1 : 0);
}

export function insertSession(sqlite: Sqlite, s: SessionInput): void {
  const startedAt = s.startedAt === undefined ? OLD : s.startedAt;
  const updatedAt = s.updatedAt ?? OLD;
  const completedAt = s.completedAt === undefined ? OLD : s.completedAt;
  sqlite
    .prepare(
      `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(s.id, s.taskId, s.state ?? "COMPLETED", startedAt, parseRfc3339(startedAt), updatedAt, parseRfc3339(updatedAt), completedAt, parseRfc3339(completedAt));
}

export function insertTurn(sqlite: Sqlite, u: TurnInput): void {
  const startedAt = u.startedAt ?? OLD;
  const completedAt = u.completedAt === undefined ? OLD : u.completedAt;
  sqlite
    .prepare(`insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?)`)
    .run(u.id, u.sessionId, startedAt, parseRfc3339(startedAt), completedAt, parseRfc3339(completedAt));
}

export function insertMessage(sqlite: Sqlite, m: MessageInput): number {
  const createdAt = m.createdAt ?? OLD;
  const updatedAt = m.updatedAt ?? OLD;
  const info = sqlite
    .prepare(
      `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id,
         created_at, created_at_ms, updated_at, updated_at_ms)
       values (?, ?, ?, 'agent', ?, 'tool', ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      m.id,
      m.sessionId,
      m.turnId ?? null,
      m.type ?? "tool_execute",
      m.metadata ?? shellMetadata(`call-${m.id}`, "x".repeat(100)),
      `call-${m.id}`,
      createdAt,
      parseRfc3339(createdAt),
      updatedAt,
      parseRfc3339(updatedAt),
    );
  return Number(info.lastInsertRowid);
}

/** A shell_exec tool payload whose stdout is `stdout`. */
export function shellMetadata(toolCallId: string, stdout: string): string {
  return JSON.stringify({
    tool_call_id: toolCallId,
    title: "npm test",
    status: "complete",
    normalized: {
      kind: "shell_exec",
      shell_exec: { command: "npm test", work_dir: "/repo", output: { exit_code: 0, stdout, stderr: "", truncated: false } },
    },
  });
}

/** A completed old task with one session, one turn and `count` shell messages. */
export function seedOldTask(sqlite: Sqlite, taskId: string, count = 1, stdout = "x".repeat(2000)): number[] {
  insertTask(sqlite, { id: taskId });
  insertSession(sqlite, { id: `${taskId}-s1`, taskId });
  insertTurn(sqlite, { id: `${taskId}-u1`, sessionId: `${taskId}-s1` });
  const rowids: number[] = [];
  for (let i = 0; i < count; i += 1) {
    rowids.push(
      insertMessage(sqlite, {
        id: `${taskId}-m${i}`,
        sessionId: `${taskId}-s1`,
        turnId: `${taskId}-u1`,
        metadata: shellMetadata(`${taskId}-c${i}`, stdout),
      }),
    );
  }
  return rowids;
}

/** A clock whose every reading advances by `stepMs` (forces budgets and deadlines). */
export function steppingClock(startMs: number, stepMs: number): { now(): number } {
  let current = startMs;
  return {
    now: () => {
      const value = current;
      current += stepMs;
      return value;
    },
  };
}

/**
 * Enables the policy with `age` and records an approved skip preparation,
 * through the real record API (two writes: the first assigns the revision).
 */
export function armPolicy(sqlite: Sqlite, age: CompactionAge = { value: 1, unit: "weeks" }, nowMs = NOW_MS): Promise<number> {
  return armPolicyOn(storeOf(sqlite), age, nowMs);
}

/** armPolicy through any engine's compaction store. */
export async function armPolicyOn(store: CompactionStore, age: CompactionAge = { value: 1, unit: "weeks" }, nowMs = NOW_MS): Promise<number> {
  const { record } = await updateCompactionRecord(store, {
    nowMs,
    mutate: (current) => ({ ...current, policy: { ...current.policy, enabled: true, age } }),
  });
  const revision = record.policy.revision;
  await updateCompactionRecord(store, {
    nowMs,
    mutate: (current) => {
      current.runtime.preparation = {
        state: "ready",
        choice: "skip",
        revision,
        operationId: "prep-1",
        receipt: { skippedAt: formatUtc(nowMs) },
        errorCode: null,
      };
      current.runtime.approvedRevision = revision;
      return current;
    },
  });
  return revision;
}

/** Rows that carry the removal marker. */
export function countMarkedRows(sqlite: Sqlite): number {
  return (sqlite.prepare("select count(*) as n from messages where json_extract(metadata, '$.payload_retention') is not null").get() as { n: number }).n;
}

/** The compaction store over a test database's connection. */
export function storeOf(sqlite: Sqlite): CompactionStore {
  return createSqliteCompactionStore(testDbOf(sqlite));
}

/**
 * The stored record as readCompactionRecord reads it, synchronously on the
 * test's connection (for assertions between steps; the domain reads it
 * through the store).
 */
export function readRecordSync(sqlite: Sqlite): CompactionRead {
  const text = sqliteCompactionVerbs(sqlite).readRecordText();
  if (text === null) return { state: "missing", record: createDefaultRecord() };
  const record = parseCompactionRecord(text);
  return record ? { state: "ok", record } : { state: "malformed", errorCode: "settings_malformed" };
}
