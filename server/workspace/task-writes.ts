// Inserts for tasks, sessions, turns, queued messages and runs. Timestamps are
// stored as given, each with its parsed `_ms` companion (timestamps.ts).
// States are stored as given too: an unknown state protects its task later.
import type { Sqlite } from "@/server/db/client";
import { statement } from "../db/statements";
import { stampOptional, stampRequired } from "./timestamps";

export type TaskInput = {
  id: string;
  title: string;
  state: string;
  createdAt: string | null;
  updatedAt: string | null;
  queuedForStep: boolean;
};

export type SessionInput = {
  id: string;
  taskId: string;
  state: string;
  startedAt: string | null;
  updatedAt: string | null;
  completedAt: string | null;
};

export type TurnInput = { id: string; sessionId: string; startedAt: string | null; completedAt: string | null };
export type QueuedMessageInput = { id: string; sessionId: string; content: string; queuedAt: string | null };
export type RunInput = { id: string; sessionId: string; state: string };

export function insertTask(sqlite: Sqlite, task: TaskInput): void {
  const created = stampRequired(task.createdAt);
  const updated = stampRequired(task.updatedAt);
  statement(
    sqlite,
    `insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(task.id, task.title, task.state, created.text, created.ms, updated.text, updated.ms, task.queuedForStep ? 1 : 0);
}

export function insertSession(sqlite: Sqlite, session: SessionInput): void {
  const started = stampOptional(session.startedAt);
  const updated = stampRequired(session.updatedAt);
  const completed = stampOptional(session.completedAt);
  statement(
    sqlite,
    `insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    session.id,
    session.taskId,
    session.state,
    started.text,
    started.ms,
    updated.text,
    updated.ms,
    completed.text,
    completed.ms,
  );
}

export function insertTurn(sqlite: Sqlite, turn: TurnInput): void {
  const started = stampRequired(turn.startedAt);
  const completed = stampOptional(turn.completedAt);
  statement(
    sqlite,
    `insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?)`,
  ).run(turn.id, turn.sessionId, started.text, started.ms, completed.text, completed.ms);
}

export function insertQueuedMessage(sqlite: Sqlite, queued: QueuedMessageInput): void {
  const at = stampRequired(queued.queuedAt);
  statement(
    sqlite,
    `insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values (?, ?, ?, ?, ?)`,
  ).run(queued.id, queued.sessionId, queued.content, at.text, at.ms);
}

export function insertRun(sqlite: Sqlite, run: RunInput): void {
  statement(sqlite, `insert into runs (id, session_id, state) values (?, ?, ?)`).run(run.id, run.sessionId, run.state);
}
