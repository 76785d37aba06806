// Export of one task as a workspace-fixture document (DESIGN.md). Metadata is
// spliced in exactly as stored, compaction markers included, so an export
// imports again and export -> import -> export is byte-identical (TPR-TX-09).
import { AppError } from "@/server/errors";
import { parseJsonTree } from "../../json/scan";
import { FIXTURE_FORMAT, FIXTURE_VERSION } from "../fixture/fixture-types";
import type { TaskTree, WorkspaceStore } from "../store";
import { RawJson, writeJson, type Writable } from "./json-writer";

type TreeSession = TaskTree["sessions"][number];

export function storedMetadata(metadata: string): RawJson {
  const tree = (() => {
    try {
      return parseJsonTree(metadata);
    } catch {
      return null;
    }
  })();
  // Fail closed: a malformed stored record must not produce an export that
  // cannot be imported again.
  if (tree?.kind !== "object") {
    throw new AppError("internal_error", "A message of this task has malformed stored metadata; export refused");
  }
  return new RawJson(metadata);
}

// Keys are listed one by one: their order is the document's.
function exportSession(s: TreeSession): Writable {
  return {
    id: s.id,
    state: s.state,
    startedAt: s.startedAt,
    updatedAt: s.updatedAt,
    completedAt: s.completedAt,
    turns: s.turns.map((t) => ({ id: t.id, startedAt: t.startedAt, completedAt: t.completedAt })),
    messages: s.messages.map((m) => ({
      id: m.id,
      turnId: m.turnId,
      authorType: m.authorType,
      type: m.type,
      content: m.content,
      metadata: storedMetadata(m.metadata),
      createdAt: m.createdAt,
      updatedAt: m.updatedAt,
    })),
    queuedMessages: s.queuedMessages.map((q) => ({ id: q.id, content: q.content, queuedAt: q.queuedAt })),
    runs: s.runs.map((r) => ({ id: r.id, state: r.state })),
  };
}

/** The fixture JSON text for one task; AppError not_found for an unknown id. */
export async function exportTask(store: WorkspaceStore, taskId: string): Promise<string> {
  const tree = await store.readTaskTree(taskId);
  if (!tree) throw new AppError("not_found", "Task not found");
  const { task } = tree;
  const doc: Writable = {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    tasks: [
      {
        id: task.id,
        title: task.title,
        state: task.state,
        createdAt: task.createdAt,
        updatedAt: task.updatedAt,
        queuedForStep: task.queuedForStep,
        // Only when held, so the export of a task that is not held stays as it always was.
        ...(tree.hold ? { hold: { heldAt: tree.hold.heldAt, heldBy: tree.hold.heldBy } } : {}),
        sessions: tree.sessions.map(exportSession),
      },
    ],
  };
  return `${writeJson(doc)}\n`;
}
