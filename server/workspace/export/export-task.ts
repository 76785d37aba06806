// Export of one task as a workspace-fixture document (DESIGN.md). Metadata is
// spliced in exactly as stored, compaction markers included, so an export
// imports again and export -> import -> export is byte-identical (TPR-TX-09).
import type { Sqlite } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { parseJsonTree } from "../../json/scan";
import { FIXTURE_FORMAT, FIXTURE_VERSION } from "../fixture/fixture-types";
import { statement } from "../../db/statements";
import { RawJson, writeJson, type Writable } from "./json-writer";

type TaskRow = { id: string; title: string; state: string; created_at: string; updated_at: string; queued_for_step: number };
type SessionRow = { id: string; state: string; started_at: string | null; updated_at: string; completed_at: string | null };
type TurnRow = { id: string; started_at: string; completed_at: string | null };
type MessageRow = {
  id: string;
  turn_id: string | null;
  author_type: string;
  type: string;
  content: string;
  metadata: string;
  created_at: string;
  updated_at: string;
};
type QueuedRow = { id: string; content: string; queued_at: string };
type RunRow = { id: string; state: string };

function storedMetadata(message: MessageRow): RawJson {
  const tree = (() => {
    try {
      return parseJsonTree(message.metadata);
    } catch {
      return null;
    }
  })();
  // Fail closed: a malformed stored record must not produce an export that
  // cannot be imported again.
  if (tree?.kind !== "object") {
    throw new AppError("internal_error", "A message of this task has malformed stored metadata; export refused");
  }
  return new RawJson(message.metadata);
}

function exportSession(sqlite: Sqlite, s: SessionRow): Writable {
  const turns = statement(sqlite, `select id, started_at, completed_at from turns where session_id = ? order by rowid`).all(s.id) as TurnRow[];
  const messages = statement(
    sqlite,
    `select id, turn_id, author_type, type, content, metadata, created_at, updated_at
     from messages where session_id = ? order by rowid`,
  ).all(s.id) as MessageRow[];
  const queued = statement(sqlite, `select id, content, queued_at from queued_messages where session_id = ? order by rowid`).all(s.id) as QueuedRow[];
  const runs = statement(sqlite, `select id, state from runs where session_id = ? order by rowid`).all(s.id) as RunRow[];
  return {
    id: s.id,
    state: s.state,
    startedAt: s.started_at,
    updatedAt: s.updated_at,
    completedAt: s.completed_at,
    turns: turns.map((t) => ({ id: t.id, startedAt: t.started_at, completedAt: t.completed_at })),
    messages: messages.map((m) => ({
      id: m.id,
      turnId: m.turn_id,
      authorType: m.author_type,
      type: m.type,
      content: m.content,
      metadata: storedMetadata(m),
      createdAt: m.created_at,
      updatedAt: m.updated_at,
    })),
    queuedMessages: queued.map((q) => ({ id: q.id, content: q.content, queuedAt: q.queued_at })),
    runs: runs.map((r) => ({ id: r.id, state: r.state })),
  };
}

/** The fixture JSON text for one task; AppError not_found for an unknown id. */
export function exportTask(sqlite: Sqlite, taskId: string): string {
  // One read transaction so the document is a consistent snapshot.
  return sqlite.transaction(() => {
    const task = statement(
      sqlite,
      `select id, title, state, created_at, updated_at, queued_for_step from tasks where id = ?`,
    ).get(taskId) as TaskRow | undefined;
    if (!task) throw new AppError("not_found", "Task not found");
    const sessions = statement(
      sqlite,
      `select id, state, started_at, updated_at, completed_at from task_sessions where task_id = ? order by rowid`,
    ).all(taskId) as SessionRow[];
    const doc: Writable = {
      format: FIXTURE_FORMAT,
      version: FIXTURE_VERSION,
      tasks: [
        {
          id: task.id,
          title: task.title,
          state: task.state,
          createdAt: task.created_at,
          updatedAt: task.updated_at,
          queuedForStep: task.queued_for_step === 1,
          sessions: sessions.map((s) => exportSession(sqlite, s)),
        },
      ],
    };
    return `${writeJson(doc)}\n`;
  }).deferred();
}
