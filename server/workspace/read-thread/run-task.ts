// One read task, wherever it runs (a read thread, or inline as the
// fallback): reads what it needs through its own connection and hands the
// answer on in pieces through `sink`, waiting whenever the sink says so.
// No "server-only": the read thread bundles this module.
import { isAppError } from "@/server/errors";
import { exportTaskPieces } from "../export/export-stream";
import { planShellOutput, removedError, shellOutputText } from "../shell-output-body";
import type { ReadConnection } from "./connection";
import type { ReadTask } from "./protocol";

export type ReadSink = {
  head(headers: Record<string, string>): void;
  /** Resolves when the receiver wants more. */
  chunk(text: string): Promise<void>;
  end(): void;
  fail(code: string, message: string, extra?: Record<string, unknown>): void;
  cancelled(): boolean;
};

/** Sends the head once the first piece exists (a refusal before it is still a clean error answer), then every piece. */
async function pour(sink: ReadSink, headers: Record<string, string>, pieces: Iterable<string> | AsyncIterable<string>): Promise<void> {
  let started = false;
  for await (const piece of pieces) {
    if (sink.cancelled()) return;
    if (!started) sink.head(headers);
    started = true;
    await sink.chunk(piece);
  }
  if (!started) sink.head(headers);
  sink.end();
}

const CONVERSATION_PIECE_CHARS = 256 * 1024;

/** `text` in pieces of at most `size` characters (one more where a cut would split a surrogate pair: each piece is encoded on its own). */
export function* textPieces(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    yield text.slice(at, end);
    at = end;
  }
}

export async function runReadTask(connection: ReadConnection, task: ReadTask, sink: ReadSink): Promise<void> {
  try {
    if (task.kind === "shell-output") {
      const row = await connection.readMessage(task.messageId);
      if (!row) return sink.fail("not_found", "Message not found");
      if (row.type !== "tool_execute") return sink.fail("not_found", "This message has no shell output");
      const plan = planShellOutput(row.metadata);
      if (plan.kind === "removed") {
        const error = removedError(plan);
        return sink.fail(error.code, error.message, error.extra);
      }
      return await pour(sink, { "content-type": "application/json" }, shellOutputText({ messageId: task.messageId, metadata: row.metadata, plan }));
    }
    if (task.kind === "conversation") {
      // Read and summarized here (SQLite's json_extract or the span scanner over every row, a 32 MiB one included), sent in pieces.
      const view = await connection.conversation(task.taskId);
      return await pour(sink, { "content-type": "application/json" }, textPieces(JSON.stringify(view), CONVERSATION_PIECE_CHARS));
    }
    // Ids are free text: the file name keeps a safe ASCII subset.
    const safe = task.taskId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "task";
    const pieces = exportTaskPieces(connection.exportReads, task.taskId);
    try {
      return await pour(
        sink,
        { "content-type": "application/json; charset=utf-8", "content-disposition": `attachment; filename="task-${safe}.json"` },
        pieces,
      );
    } finally {
      // A cancelled answer stops reading: ends the snapshot.
      await pieces.return(undefined);
    }
  } catch (error) {
    if (isAppError(error)) return sink.fail(error.code, error.message, error.extra);
    sink.fail("internal_error", (error as Error)?.name ?? "error");
  }
}
