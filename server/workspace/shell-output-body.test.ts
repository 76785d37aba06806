// Differential fuzz of the streamed shell-output answer against the
// previous implementation (lossless-json over the whole row, kept here as
// the independent expectation), on generated rows: strings with escapes,
// astral characters and control escapes, numbers of every shape, values of
// the wrong type, markers, repeated keys and broken JSON.
import { isLosslessNumber, parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { planShellOutput, removedError, shellOutputText } from "./shell-output-body";

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

/** The previous getShellOutput's answer for one metadata text. */
function expected(messageId: string, metadata: string): { status: number; body: unknown } {
  let value: unknown;
  try {
    value = parse(metadata);
  } catch {
    return { status: 404, body: null };
  }
  if (!isObj(value)) return { status: 404, body: null };
  const normalized = value.normalized;
  if (!isObj(normalized) || normalized.kind !== "shell_exec" || !isObj(normalized.shell_exec)) return { status: 404, body: null };
  const shell = normalized.shell_exec;
  const output = isObj(shell.output) ? shell.output : {};
  const summary = { command: str(shell.command), workDir: str(shell.work_dir), exitCode: int(output.exit_code), truncated: output.truncated === true };
  if (value.payload_retention !== undefined) {
    const marker = isObj(value.payload_retention) ? value.payload_retention : {};
    const removedFields = Array.isArray(marker.removed_fields) ? marker.removed_fields.filter((f) => typeof f === "string") : [];
    return { status: 410, body: { removedAt: str(marker.removed_at), summary: { ...summary, removedFields } } };
  }
  return {
    status: 200,
    body: { messageId, command: summary.command, workDir: summary.workDir, exitCode: summary.exitCode, stdout: str(output.stdout) ?? "", stderr: str(output.stderr) ?? "", truncated: summary.truncated },
  };
}

function actual(messageId: string, metadata: string, chunkChars: number): { status: number; body: unknown } {
  try {
    const plan = planShellOutput(metadata);
    if (plan.kind === "removed") {
      const error = removedError(plan);
      return { status: 410, body: JSON.parse(JSON.stringify(error.extra)) };
    }
    return { status: 200, body: JSON.parse([...shellOutputText({ messageId, metadata, plan }, chunkChars)].join("")) };
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return { status: 404, body: null };
    throw error;
  }
}

// A small deterministic generator (mulberry32).
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["a", "é", "😀", "\\n", "\\\"", "\\\\", "\\u0000", "\\ud83d\\ude00", "\\u00e9", "\\/", " ", "\\t", "中"];
const NUMBERS = ["0", "1", "-1", "1.0", "1e2", "9007199254740993", "0.5", "-0", "1E-2"];

function literalOf(rand: () => number): string {
  const length = Math.floor(rand() * 40);
  let text = "";
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(rand() * PIECES.length)];
  return `"${text}"`;
}

function valueOf(rand: () => number, wanted: "string" | "number" | "bool"): string {
  const roll = rand();
  if (roll < 0.7) return wanted === "string" ? literalOf(rand) : wanted === "number" ? NUMBERS[Math.floor(rand() * NUMBERS.length)]! : rand() < 0.5 ? "true" : "false";
  const wrong = ["null", "[]", "{}", '"true"', "7", literalOf(rand), "[1,2]"];
  return wrong[Math.floor(rand() * wrong.length)]!;
}

function rowOf(rand: () => number): string {
  const members = (pairs: [string, string][]) => `{${pairs.filter(() => rand() > 0.08).map(([k, v]) => `"${k}":${v}`).join(",")}}`;
  const output = members([
    ["exit_code", valueOf(rand, "number")],
    ["stdout", valueOf(rand, "string")],
    ["stderr", valueOf(rand, "string")],
    ["truncated", valueOf(rand, "bool")],
  ]);
  const shell = members([
    ["command", valueOf(rand, "string")],
    ["work_dir", valueOf(rand, "string")],
    ["output", rand() < 0.9 ? output : "null"],
  ]);
  const kind = rand() < 0.9 ? '"shell_exec"' : '"read_file"';
  const normalized = members([
    ["kind", kind],
    ["shell_exec", rand() < 0.95 ? shell : "[]"],
  ]);
  const marker = ['{"version":1,"removed_at":"2026-05-01T00:00:00Z","removed_fields":["normalized.shell_exec.output.stdout",3]}', "null", '"x"', "{}"][Math.floor(rand() * 4)]!;
  const top: [string, string][] = [
    ["tool_call_id", '"c1"'],
    ["normalized", normalized],
  ];
  if (rand() < 0.2) top.push(["payload_retention", marker]);
  let text = `{${top.map(([k, v]) => `"${k}":${v}`).join(",")}}`;
  const damage = rand();
  if (damage < 0.03) text = text.slice(0, Math.floor(rand() * text.length));
  else if (damage < 0.05) text = `[${text}]`;
  else if (damage < 0.08) text = text.replace('"tool_call_id":"c1"', '"tool_call_id":"c1","tool_call_id":"c2"');
  return text;
}

describe("shell output answer, streamed from spans", () => {
  it("[#26-3] answers exactly what the whole-row lossless-json parse answered, on 3,000 generated rows", () => {
    const rand = random(2026);
    const seen = new Set<number>();
    for (let i = 0; i < 3000; i++) {
      const metadata = rowOf(rand);
      const chunk = 1 + Math.floor(rand() * 9);
      // As the client received it: through JSON (-0 is sent as 0).
      const raw = expected(`m${i}`, metadata);
      const want = { status: raw.status, body: JSON.parse(JSON.stringify(raw.body)) };
      const got = actual(`m${i}`, metadata, chunk);
      seen.add(want.status);
      expect(got, metadata).toEqual(want);
    }
    expect([...seen].sort()).toEqual([200, 404, 410]);
  });

  it("[#26-3] a repeated key is refused even where lossless-json let equal copies through (fail closed)", () => {
    const row = '{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a"}}},"x":1,"x":1}';
    expect(expected("m", row).status).toBe(200);
    expect(actual("m", row, 4).status).toBe(404);
  });

  it("never splits a surrogate pair between chunks", () => {
    const row = `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"${"😀".repeat(50)}"}}}}`;
    const plan = planShellOutput(row);
    if (plan.kind !== "output") throw new Error("expected output");
    const chunks = [...shellOutputText({ messageId: "m", metadata: row, plan }, 3)];
    for (const chunk of chunks) expect(Buffer.from(chunk, "utf8").toString("utf8")).toBe(chunk);
    expect(JSON.parse(chunks.join("")).stdout).toBe("😀".repeat(50));
  });
});
