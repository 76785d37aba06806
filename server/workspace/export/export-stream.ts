// Export of one task as a workspace-fixture document, streamed: the task and
// its sessions are read page by page from one snapshot (a message page
// holds up to EXPORT_PAGE_BYTES of stored text, at least one row), and the
// document is produced in pieces of at most EXPORT_PIECE_CHARS, so a
// 500k-message task never becomes one string. The bytes are those of
// exportTask (export-task.ts): the same layout, metadata spliced as stored.
// No "server-only": the read thread bundles this module.
import { AppError } from "@/server/errors";
import { FIXTURE_FORMAT, FIXTURE_VERSION } from "../fixture/fixture-types";
import type { TaskTree } from "../store";
import { storedMetadata } from "./export-task";
import { writeJsonAt, type Writable } from "./json-writer";

type TreeSession = TaskTree["sessions"][number];
export type ExportSession = Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">;
export type ExportMessage = TreeSession["messages"][number];

/** What the export reads, inside one snapshot. */
export type ExportReads = {
  /** Starts the read snapshot every later read sees. */
  begin(): Promise<void>;
  /** Ends it. */
  end(): Promise<void>;
  task(taskId: string): Promise<TaskTree["task"] | null>;
  /** The task's hold, or null when it is not held. */
  hold(taskId: string): Promise<TaskTree["hold"]>;
  sessions(taskId: string): Promise<ExportSession[]>;
  turns(sessionId: string): Promise<TreeSession["turns"]>;
  queued(sessionId: string): Promise<TreeSession["queuedMessages"]>;
  runs(sessionId: string): Promise<TreeSession["runs"]>;
  /** Insertion keys and stored sizes of the next messages after `afterSeq`, at most `limit`. */
  messageSizes(sessionId: string, afterSeq: number, limit: number): Promise<{ seq: number; bytes: number }[]>;
  /** The messages with keys in (afterSeq, throughSeq], in order. */
  messages(sessionId: string, afterSeq: number, throughSeq: number): Promise<ExportMessage[]>;
};

export const EXPORT_PAGE_BYTES = 8 * 1024 * 1024;
export const EXPORT_PAGE_ROWS = 500;
export const EXPORT_PIECE_CHARS = 256 * 1024;

const I1 = "  ";
const pad = (level: number) => I1.repeat(level);

function messageValue(m: ExportMessage): Writable {
  return {
    id: m.id,
    turnId: m.turnId,
    authorType: m.authorType,
    type: m.type,
    content: m.content,
    metadata: storedMetadata(m.metadata),
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** A list's entries at `level`, as writeJson lays them out ("[" and "]" by the caller). */
async function* entries<T>(items: AsyncIterable<T> | Iterable<T>, level: number, value: (item: T) => Writable): AsyncGenerator<string> {
  let first = true;
  for await (const item of items) {
    yield `${first ? "\n" : ",\n"}${pad(level)}`;
    yield writeJsonAt(value(item), pad(level));
    first = false;
  }
  if (!first) yield `\n${pad(level - 1)}`;
}

async function* messagesOf(reads: ExportReads, sessionId: string): AsyncGenerator<ExportMessage> {
  let after = 0;
  for (;;) {
    const sizes = await reads.messageSizes(sessionId, after, EXPORT_PAGE_ROWS);
    if (sizes.length === 0) return;
    let through = sizes[0]!.seq;
    let bytes = 0;
    for (const size of sizes) {
      if (bytes > 0 && bytes + size.bytes > EXPORT_PAGE_BYTES) break;
      bytes += size.bytes;
      through = size.seq;
    }
    for (const message of await reads.messages(sessionId, after, through)) yield message;
    after = through;
  }
}

async function* sessionText(reads: ExportReads, s: ExportSession, level: number): AsyncGenerator<string> {
  const p = pad(level + 1);
  const scalars = (["id", "state", "startedAt", "updatedAt", "completedAt"] as const).map((k) => `\n${p}${JSON.stringify(k)}: ${JSON.stringify(s[k])},`).join("");
  yield `{${scalars}\n${p}"turns": ${writeJsonAt(await reads.turns(s.id), p)},\n${p}"messages": [`;
  yield* entries(messagesOf(reads, s.id), level + 2, messageValue);
  yield `],\n${p}"queuedMessages": ${writeJsonAt(await reads.queued(s.id), p)},\n${p}"runs": ${writeJsonAt(await reads.runs(s.id), p)}\n${pad(level)}}`;
}

async function* documentText(reads: ExportReads, taskId: string): AsyncGenerator<string> {
  const task = await reads.task(taskId);
  if (!task) throw new AppError("not_found", "Task not found");
  const head: Record<string, Writable> = {
    id: task.id,
    title: task.title,
    state: task.state,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
    queuedForStep: task.queuedForStep,
  };
  // Only when held, so the export of a task that is not held stays as it always was.
  const hold = await reads.hold(taskId);
  if (hold) head.hold = { heldAt: hold.heldAt, heldBy: hold.heldBy };
  const p3 = pad(3);
  yield `{\n${I1}"format": ${JSON.stringify(FIXTURE_FORMAT)},\n${I1}"version": ${FIXTURE_VERSION},\n${I1}"tasks": [\n${pad(2)}{`;
  yield Object.keys(head).map((k) => `\n${p3}${JSON.stringify(k)}: ${writeJsonAt(head[k]!, p3)},`).join("");
  yield `\n${p3}"sessions": [`;
  const sessions = await reads.sessions(taskId);
  let first = true;
  for (const session of sessions) {
    yield `${first ? "\n" : ",\n"}${pad(4)}`;
    yield* sessionText(reads, session, 4);
    first = false;
  }
  if (!first) yield `\n${p3}`;
  yield `]\n${pad(2)}}\n${I1}]\n}\n`;
}

/** The document in pieces of at most EXPORT_PIECE_CHARS (a stored row larger than that is cut; never inside a surrogate pair). */
export async function* exportTaskPieces(reads: ExportReads, taskId: string, pieceChars = EXPORT_PIECE_CHARS): AsyncGenerator<string> {
  // One snapshot for the whole document, held while the consumer reads it.
  await reads.begin();
  try {
    let buffer = "";
    for await (const text of documentText(reads, taskId)) {
      buffer += text;
      while (buffer.length >= pieceChars) {
        let cut = pieceChars;
        const last = buffer.charCodeAt(cut - 1);
        if (last >= 0xd800 && last <= 0xdbff) cut += 1;
        yield buffer.slice(0, cut);
        buffer = buffer.slice(cut);
      }
    }
    if (buffer) yield buffer;
  } finally {
    await reads.end();
  }
}
