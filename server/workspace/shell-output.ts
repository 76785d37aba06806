import "server-only";
// Lazy shell output of one tool_execute message. The compaction marker is
// checked before any output is returned: once a payload was removed the
// answer is 410 tool_payload_removed with the removal time and the retained
// summary (TPR-TX-06), never a stale or partial body.
import { isLosslessNumber, parse } from "lossless-json";
import type { ShellOutputResponse } from "@/lib/conversation/api";
import type { Sqlite } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { statement } from "../db/statements";

/** The 200 body; the wire type lives with the conversation API. */
export type ShellOutput = ShellOutputResponse;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v) && !isLosslessNumber(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function int(v: unknown): number | null {
  if (typeof v === "number") return Number.isSafeInteger(v) ? v : null;
  if (isLosslessNumber(v)) {
    const n = Number(v.value);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

function noShellOutput(): AppError {
  return new AppError("not_found", "This message has no shell output");
}

function readMetadata(text: string): Obj {
  try {
    // lossless-json: exact numbers, and never JSON.parse on stored metadata.
    const value = parse(text);
    if (isObj(value)) return value;
  } catch {
    // Fall through: a malformed stored record fails closed.
  }
  throw noShellOutput();
}

export function getShellOutput(sqlite: Sqlite, messageId: string): ShellOutput {
  const row = statement(sqlite, `select type, metadata from messages where id = ?`).get(messageId) as
    | { type: string; metadata: string }
    | undefined;
  if (!row) throw new AppError("not_found", "Message not found");
  if (row.type !== "tool_execute") throw noShellOutput();
  const metadata = readMetadata(row.metadata);
  const normalized = metadata.normalized;
  if (!isObj(normalized) || normalized.kind !== "shell_exec" || !isObj(normalized.shell_exec)) throw noShellOutput();
  const shell = normalized.shell_exec;
  const output = isObj(shell.output) ? shell.output : {};
  const command = str(shell.command);
  const workDir = str(shell.work_dir);
  const exitCode = int(output.exit_code);
  const truncated = output.truncated === true;

  if (metadata.payload_retention !== undefined) {
    const marker = isObj(metadata.payload_retention) ? metadata.payload_retention : {};
    const removedFields = Array.isArray(marker.removed_fields) ? marker.removed_fields.filter((f) => typeof f === "string") : [];
    throw new AppError("tool_payload_removed", "The shell output of this message was removed by messages compaction", {
      removedAt: str(marker.removed_at),
      summary: { command, workDir, exitCode, truncated, removedFields },
    });
  }
  return {
    messageId,
    command,
    workDir,
    exitCode,
    stdout: str(output.stdout) ?? "",
    stderr: str(output.stderr) ?? "",
    truncated,
  };
}
