// The shell-output answer of one stored row, built without turning the row
// into JavaScript values: the span scanner (server/json/scan.ts, linear,
// strings skipped with native searches) finds the fields, and stdout/stderr
// go into the answer as the stored string literals, sliced in chunks, so a
// 32 MiB row never becomes a 32 MiB value that is parsed (lossless-json ran
// at 4-6 MiB/s) and serialized again on one thread. A literal the scanner
// accepted is valid JSON text, so the client reads the same string.
//
// Meaning is the one lossless-json gave (shell-output.ts before): a repeated
// key anywhere, or anything that is not a JSON object, is no shell output
// (fail closed); the compaction marker is checked before any output.
// No "server-only": the read thread bundles this module.
import { AppError } from "@/server/errors";
import { parseJsonTree } from "@/server/json/scan";
import type { JsonNode, JsonObjectNode, JsonSpan } from "@/server/json/nodes";

export type ShellOutputPlan =
  | { kind: "removed"; removedAt: string | null; summary: ShellSummary }
  | { kind: "output"; summary: Omit<ShellSummary, "removedFields">; stdout: JsonSpan | null; stderr: JsonSpan | null };

type ShellSummary = { command: string | null; workDir: string | null; exitCode: number | null; truncated: boolean; removedFields: string[] };

/** Characters of stored text per chunk of the answer. */
export const SHELL_OUTPUT_CHUNK_CHARS = 256 * 1024;

function noShellOutput(): AppError {
  return new AppError("not_found", "This message has no shell output");
}

const object = (node: JsonNode | undefined): JsonObjectNode | null => (node?.kind === "object" ? node : null);
const text = (node: JsonNode | undefined): string | null => (node?.kind === "string" ? node.value : null);

function field(node: JsonObjectNode | null, key: string): JsonNode | undefined {
  return node?.members.find((m) => m.key === key)?.value;
}

function integer(node: JsonNode | undefined): number | null {
  if (node?.kind !== "number") return null;
  const n = Number(node.raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** What to answer for a tool_execute row's metadata; AppError not_found when it holds no shell output. */
export function planShellOutput(metadata: string): ShellOutputPlan {
  let root: JsonNode;
  try {
    root = parseJsonTree(metadata);
  } catch {
    throw noShellOutput();
  }
  const top = object(root);
  if (!top) throw noShellOutput();
  const normalized = object(field(top, "normalized"));
  const shell = object(field(normalized, "shell_exec"));
  if (!normalized || text(field(normalized, "kind")) !== "shell_exec" || !shell) throw noShellOutput();
  const output = object(field(shell, "output"));
  const summary = {
    command: text(field(shell, "command")),
    workDir: text(field(shell, "work_dir")),
    exitCode: integer(field(output, "exit_code")),
    truncated: field(output, "truncated")?.kind === "boolean" && (field(output, "truncated") as { value: boolean }).value,
  };
  const marker = field(top, "payload_retention");
  if (marker !== undefined) {
    const fields = field(object(marker), "removed_fields");
    const removedFields = fields?.kind === "array" ? fields.items.map(text).filter((f): f is string => f !== null) : [];
    return { kind: "removed", removedAt: text(field(object(marker), "removed_at")), summary: { ...summary, removedFields } };
  }
  const span = (node: JsonNode | undefined): JsonSpan | null => (node?.kind === "string" ? { start: node.start, end: node.end } : null);
  return { kind: "output", summary, stdout: span(field(output, "stdout")), stderr: span(field(output, "stderr")) };
}

/** The 410 answer for a removed payload (small: ids and the summary). */
export function removedError(plan: Extract<ShellOutputPlan, { kind: "removed" }>): AppError {
  return new AppError("tool_payload_removed", "The shell output of this message was removed by messages compaction", {
    removedAt: plan.removedAt,
    summary: plan.summary,
  });
}

/**
 * The 200 answer's JSON text, in pieces of at most `chunkChars` stored
 * characters: the same fields, in the same order, as before.
 */
export function* shellOutputText(
  options: { messageId: string; metadata: string; plan: Extract<ShellOutputPlan, { kind: "output" }> },
  chunkChars = SHELL_OUTPUT_CHUNK_CHARS,
): Generator<string> {
  const { messageId, metadata, plan } = options;
  const s = plan.summary;
  yield `{"messageId":${JSON.stringify(messageId)},"command":${JSON.stringify(s.command)},"workDir":${JSON.stringify(s.workDir)},"exitCode":${JSON.stringify(s.exitCode)},"stdout":`;
  yield* literal(metadata, plan.stdout, chunkChars);
  yield `,"stderr":`;
  yield* literal(metadata, plan.stderr, chunkChars);
  yield `,"truncated":${s.truncated}}`;
}

function* literal(metadata: string, span: JsonSpan | null, chunkChars: number): Generator<string> {
  if (!span) {
    yield '""';
    return;
  }
  let at = span.start;
  while (at < span.end) {
    let end = Math.min(span.end, at + chunkChars);
    // Never split a surrogate pair across chunks: each chunk is encoded to UTF-8 on its own.
    const last = metadata.charCodeAt(end - 1);
    if (end < span.end && last >= 0xd800 && last <= 0xdbff) end += 1;
    yield metadata.slice(at, end);
    at = end;
  }
}
