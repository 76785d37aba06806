// Generates a large, deterministic agent workspace for scale tests and benchmarks.
//   npx tsx --conditions=react-server scripts/gen-large-workspace.ts --messages 1000000 --out FILE [--seed 42] [--huge 3]
// Shape: ~150 messages per task, 1-3 sessions per task, ~60 % tool rows with
// normalized payloads of every compactable kind, a long-tailed size mix
// (most rows 0.2-12 KB, a few hundred KB to 2 MB) plus `--huge` rows of
// 30 MiB. ~85 % of tasks are old and finished; the rest are recent, live,
// waiting on a permission, queued, or carry an invalid timestamp.
// Timestamps are relative to NOW_MS below so a 3-month policy has work.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { openDatabase } from "@/server/db/client";
import { formatUtc } from "@/lib/time/rfc3339";

export const GEN_NOW_MS = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;
const MIB = 1024 * 1024;
// ~5 % of the pool's characters are multi-byte and newlines escape to two
// bytes, so 28 Mi characters store as roughly 30 MiB of metadata.
const HUGE_CHARS = 28 * MIB;

export type GenerateOptions = { file: string; messages: number; seed?: number; hugeRows?: number; log?: (line: string) => void };
export type GenerateSummary = { tasks: number; messages: number; toolRows: number; metadataChars: number; seconds: number };

/** mulberry32: small, fast, deterministic. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One shared text pool; payloads are slices of it (cheap, realistic bytes).
function buildPool(rand: () => number, length: number): string {
  const words = ["error", "test", "build", "src/index.ts", "passed", "warning:", "const", "return", "função", "日志", "ok", "npm", "42", "{", "}", "=>"];
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const word = words[Math.floor(rand() * words.length)]!;
    const sep = rand() < 0.12 ? "\n" : " ";
    parts.push(word, sep);
    size += word.length + 1;
  }
  return parts.join("").slice(0, length);
}

function payloadSize(rand: () => number): number {
  const r = rand();
  const between = (lo: number, hi: number) => Math.floor(lo + rand() * (hi - lo));
  if (r < 0.6) return between(200, 2_000);
  if (r < 0.9) return between(2_000, 12_000);
  if (r < 0.99) return between(12_000, 48_000);
  if (r < 0.999) return between(64_000, 256_000);
  return between(512_000, 2 * MIB);
}

const TOOL_TYPES = ["tool_execute", "tool_execute", "tool_execute", "tool_read", "tool_read", "tool_edit", "tool_search", "tool_call"] as const;
const OTHER_TYPES = ["message", "content", "thinking", "progress", "status", "agent_plan", "todo", "log"] as const;

function toolMetadata(type: string, callId: string, text: string, rand: () => number): string {
  const half = text.slice(0, text.length >> 1);
  let normalized: Record<string, unknown>;
  switch (type) {
    case "tool_execute":
      normalized = { kind: "shell_exec", shell_exec: { command: "npm test -- --run", work_dir: "/repo", timeout: 600, output: { exit_code: rand() < 0.8 ? 0 : 1, stdout: text, stderr: rand() < 0.2 ? half : "", truncated: false } } };
      break;
    case "tool_read":
      normalized = { kind: "read_file", read_file: { file_path: "/repo/src/module.ts", offset: 0, limit: 2000, output: { content: text, line_count: 120, truncated: false, language: "typescript" } } };
      break;
    case "tool_edit":
      normalized = { kind: "modify_file", modify_file: { file_path: "/repo/src/module.ts", mutations: [{ type: "patch", old_content: half, new_content: half, diff: text, start_line: 10, end_line: 40 }, { type: "patch", diff: half, start_line: 90, end_line: 95 }] } };
      break;
    case "tool_search":
      normalized = { kind: "code_search", code_search: { query: "TODO", path: "/repo", output: { files: text.split("\n").slice(0, 400), file_count: 400, truncated: false } } };
      break;
    default:
      normalized = rand() < 0.5
        ? { kind: "http_request", http_request: { url: "https://api.example.test/v1/items", method: "GET", response: text, is_error: false } }
        : { kind: "generic", generic: { name: "lookup", input: { q: half.slice(0, 200) }, output: text } };
  }
  if (rand() < 0.01) (normalized as Record<string, unknown>).background_work = { id: callId };
  const meta: Record<string, unknown> = { tool_call_id: callId, title: "tool", status: "complete", normalized };
  if (rand() < 0.2) meta.result = half;
  return JSON.stringify(meta);
}

type TaskPlan = { state: string; sessionState: string; updatedMs: number; blocker: "none" | "run" | "permission" | "queued" | "invalid" };

function planTask(rand: () => number): TaskPlan {
  const r = rand();
  const oldMs = GEN_NOW_MS - (100 + Math.floor(rand() * 600)) * DAY;
  if (r < 0.85) return { state: "COMPLETED", sessionState: "COMPLETED", updatedMs: oldMs, blocker: "none" };
  if (r < 0.93) return { state: "COMPLETED", sessionState: "COMPLETED", updatedMs: GEN_NOW_MS - Math.floor(rand() * 60) * DAY, blocker: "none" };
  if (r < 0.95) return { state: "IN_PROGRESS", sessionState: "RUNNING", updatedMs: oldMs, blocker: "run" };
  if (r < 0.97) return { state: "WAITING_FOR_INPUT", sessionState: "COMPLETED", updatedMs: oldMs, blocker: "permission" };
  if (r < 0.99) return { state: "COMPLETED", sessionState: "COMPLETED", updatedMs: oldMs, blocker: "queued" };
  return { state: "COMPLETED", sessionState: "COMPLETED", updatedMs: oldMs, blocker: "invalid" };
}

export function generateWorkspace(options: GenerateOptions): GenerateSummary {
  const started = performance.now();
  const rand = random(options.seed ?? 42);
  const hugeRows = options.hugeRows ?? 3;
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(options.file + suffix, { force: true });
  const { sqlite } = openDatabase({ file: options.file });
  sqlite.pragma("synchronous = OFF");
  const pool = buildPool(rand, 31 * MIB);
  const insertTask = sqlite.prepare("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms, queued_for_step) values (?, ?, ?, ?, ?, ?, ?, 0)");
  const insertSession = sqlite.prepare("insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const insertTurn = sqlite.prepare("insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, ?, ?, ?, ?, ?)");
  const insertMessage = sqlite.prepare(
    "insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms) values (?, ?, ?, 'agent', ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertRun = sqlite.prepare("insert into runs (id, session_id, state) values (?, ?, 'RUNNING')");
  const insertQueued = sqlite.prepare("insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values (?, ?, 'later', ?, ?)");
  let made = 0;
  let tasks = 0;
  let toolRows = 0;
  let metadataChars = 0;
  let hugeLeft = hugeRows;
  const writeTask = sqlite.transaction((perTask: number) => {
    const taskId = `task-${String(tasks).padStart(8, "0")}`;
    tasks += 1;
    const plan = planTask(rand);
    const createdMs = plan.updatedMs - 2 * DAY;
    const at = (ms: number) => formatUtc(ms);
    insertTask.run(taskId, `Task ${tasks}`, plan.state, at(createdMs), createdMs, at(plan.updatedMs), plan.updatedMs);
    const sessions = 1 + Math.floor(rand() * 3);
    for (let s = 0; s < sessions && made < options.messages; s += 1) {
      const sessionId = `${taskId}-s${s}`;
      const live = plan.blocker === "run" && s === 0;
      insertSession.run(sessionId, taskId, live ? plan.sessionState : "COMPLETED", at(createdMs), createdMs, at(plan.updatedMs - DAY), plan.updatedMs - DAY, live ? null : at(plan.updatedMs - DAY), live ? null : plan.updatedMs - DAY);
      if (live) insertRun.run(`${sessionId}-run`, sessionId);
      if (plan.blocker === "queued" && s === 0) insertQueued.run(`${sessionId}-q`, sessionId, at(plan.updatedMs), plan.updatedMs);
      const turnId = `${sessionId}-u0`;
      insertTurn.run(turnId, sessionId, at(createdMs), createdMs, at(plan.updatedMs - DAY), plan.updatedMs - DAY);
      const count = Math.min(Math.ceil(perTask / sessions), options.messages - made);
      for (let m = 0; m < count; m += 1) {
        const msgMs = createdMs + m * 1000;
        const isTool = rand() < 0.6;
        const type = isTool ? TOOL_TYPES[Math.floor(rand() * TOOL_TYPES.length)]! : OTHER_TYPES[Math.floor(rand() * OTHER_TYPES.length)]!;
        const callId = `${sessionId}-c${m}`;
        let metadata: string;
        if (isTool) {
          const size = hugeLeft > 0 && plan.blocker === "none" && plan.updatedMs < GEN_NOW_MS - 100 * DAY && rand() < 0.01 ? HUGE_CHARS : payloadSize(rand);
          if (size === HUGE_CHARS) hugeLeft -= 1;
          const offset = Math.floor(rand() * Math.max(1, pool.length - size));
          metadata = toolMetadata(type, callId, pool.slice(offset, offset + size), rand);
          toolRows += 1;
        } else if (plan.blocker === "permission" && m === count - 1) {
          metadata = JSON.stringify({ status: "pending", tool: "shell" });
        } else {
          metadata = JSON.stringify({ text_length: 120 });
        }
        const type2 = plan.blocker === "permission" && m === count - 1 && !isTool ? "permission_request" : type;
        const updatedText = plan.blocker === "invalid" && m === 0 ? "2025-02-30T00:00:00Z" : at(msgMs);
        const updatedMs = plan.blocker === "invalid" && m === 0 ? null : msgMs;
        metadataChars += metadata.length;
        insertMessage.run(`${sessionId}-m${m}`, sessionId, turnId, type2, "Run tests", metadata, isTool ? callId : null, at(msgMs), msgMs, updatedText, updatedMs);
        made += 1;
      }
    }
  });
  while (made < options.messages) {
    writeTask(40 + Math.floor(rand() * 220));
    if (tasks % 500 === 0) options.log?.(`generated ${made}/${options.messages} messages`);
  }
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
  return { tasks, messages: made, toolRows, metadataChars, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) };
}

function argValue(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1]! : fallback;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  const summary = generateWorkspace({
    file: argValue("out", "data/large-workspace.db"),
    messages: Number(argValue("messages", "1000000")),
    seed: Number(argValue("seed", "42")),
    hugeRows: Number(argValue("huge", "3")),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  console.log(JSON.stringify(summary));
}
