// Checkpoint channel benchmark: paired full/delta cases, each in a fresh
// child process (scripts/bench/checkpoint-case.ts) on SqliteSaver through our
// saver wrapper. Mode order alternates between consecutive pairs; a pair
// whose materialized digests differ fails every row of the pair. Writes JSONL
// (one row per case) and prints a one-line summary.
//
//   npx tsx scripts/bench/checkpoint-channels.ts --turns 100,500 --payload-bytes 128 \
//     --snapshot-frequencies 10 --repetitions 1 --output /tmp/ckpt.jsonl
// Other flags: --max-full-bytes N (estimated cumulative full payload cap,
// default 1 GiB; an oversized pair is skipped in both modes),
// --allow-large-cases, --modes full,delta, --timeout-seconds, --tmpdir DIR
// (point it at real disk: full mode at 1000 turns writes ~2.8 GB, 2.76 GB of
// checkpoints measured 2026-12-01).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pairDigestFailures, planPairs, type BenchCase, type PlanOptions } from "./checkpoint-plan";

const SCHEMA = "checkpoint-channels/v1";
const CASE_SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), "checkpoint-case.ts");

type Options = Required<PlanOptions> & {
  timeoutSeconds: number;
  output: string | null;
  tmpdir: string | undefined;
};

function csvInts(value: string, flag: string): number[] {
  const seen = new Set<number>();
  for (const part of value.split(",")) {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag}: "${part}" is not a positive integer`);
    if (seen.has(n)) process.stderr.write(`warning: duplicate ${flag} value ${n} ignored (use --repetitions)\n`);
    seen.add(n);
  }
  return [...seen];
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    turns: [100],
    payloadBytes: 128,
    frequencies: [10],
    repetitions: 1,
    maxFullBytes: 1024 ** 3,
    allowLarge: false,
    timeoutSeconds: 1800,
    output: null,
    tmpdir: undefined,
    modes: ["full", "delta"],
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const value = argv[i + 1] ?? "";
    const take = () => {
      i += 1;
      return value;
    };
    if (flag === "--turns") options.turns = csvInts(take(), flag);
    else if (flag === "--payload-bytes") options.payloadBytes = csvInts(take(), flag)[0]!;
    else if (flag === "--snapshot-frequencies") options.frequencies = csvInts(take(), flag);
    else if (flag === "--repetitions") options.repetitions = csvInts(take(), flag)[0]!;
    else if (flag === "--max-full-bytes") options.maxFullBytes = csvInts(take(), flag)[0]!;
    else if (flag === "--timeout-seconds") options.timeoutSeconds = csvInts(take(), flag)[0]!;
    else if (flag === "--allow-large-cases") options.allowLarge = true;
    else if (flag === "--output") options.output = take();
    else if (flag === "--tmpdir") options.tmpdir = take();
    else if (flag === "--modes") {
      const modes = take().split(",").map((m) => m.trim());
      if (modes.length === 0 || modes.some((m) => m !== "full" && m !== "delta")) throw new Error("--modes takes full,delta");
      options.modes = modes as Options["modes"];
    }
    else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

type Case = BenchCase;

function runChild(c: Case, options: Options): Record<string, unknown> {
  const started = Date.now();
  const child = spawnSync(process.execPath, ["--import", "tsx", CASE_SCRIPT, JSON.stringify({ ...c, tmpdir: options.tmpdir })], {
    encoding: "utf8",
    timeout: options.timeoutSeconds * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const wallMs = Date.now() - started;
  const line = child.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return { ...(JSON.parse(line) as Record<string, unknown>), wallMs };
  } catch {
    return { ok: false, error: child.error ? child.error.message : `child exited ${String(child.status)}`, wallMs };
  }
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  const rows: Record<string, unknown>[] = [];
  const out = options.output ? fs.openSync(options.output, "a") : null;
  const emit = (row: Record<string, unknown>) => {
    rows.push(row);
    const text = `${JSON.stringify(row)}\n`;
    if (out !== null) fs.writeSync(out, text);
    else process.stdout.write(text);
  };
  for (const pair of planPairs(options)) {
    const base = { turns: pair.turns, payloadBytes: options.payloadBytes, repetition: pair.repetition, schema: SCHEMA };
    if (pair.skipped) {
      for (const c of pair.cases) emit({ ...base, ...c, ok: false, skipped: pair.skipped, estimatedFullBytes: pair.estimatedFullBytes });
      continue;
    }
    const results = pair.cases.map((c, order) => ({ c, order, result: runChild(c, options) }));
    const failures = pairDigestFailures(results.map((r) => ({ mode: r.c.mode, ok: r.result.ok, digest: r.result.digest })));
    results.forEach(({ c, order, result }, i) => {
      const row = { ...base, ...c, order, ...result };
      if (failures[i]) Object.assign(row, { ok: false, error: "digest_mismatch" });
      emit(row);
    });
  }
  if (out !== null) fs.closeSync(out);
  const okRows = rows.filter((r) => r.ok === true);
  const pairs = options.turns.map((turns) => {
    const f = okRows.find((r) => r.turns === turns && r.mode === "full");
    const d = okRows.find((r) => r.turns === turns && r.mode === "delta");
    return f && d ? `${turns}t ${(Number(d.checkpointBytes) / Number(f.checkpointBytes)).toFixed(3)}` : `${turns}t n/a`;
  });
  process.stderr.write(`checkpoint-channels: ${okRows.length}/${rows.length} cases ok; delta/full checkpoint bytes (full = baseline): ${pairs.join(", ")}\n`);
  if (rows.some((r) => r.ok !== true && !r.skipped)) process.exitCode = 1;
}

main();
