// Benchmark: the time limits of a Messages compaction pass at scale, on the
// real clock (the unit tests drive them with a manual clock, so only this
// shows them holding on real rows and a real disk):
//   - 30 s work budget per slice (then a continuation after >= 60 s, not
//     waited here: the requested delay is reported);
//   - 200 ms statement deadline per batch (an overrun rolls back and retries
//     smaller; a row that overruns alone is left intact);
//   - 100 ms yield after each batch;
//   - 200 ms eligibility budget per task probe.
//   npx tsx --conditions=react-server scripts/bench/compaction-limits.ts [--messages 120000] [--dir /tmp/bench-compaction-limits] [--reuse]
// A worker-thread writer inserts 50 messages/s throughout; its latency with
// no pass running (measured first, same run, same file) is the baseline.
// Prints one JSON object and a one-line summary.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { createLogger } from "@/server/log";
import { openDatabase } from "@/server/db/client";
import { PASS_LIMITS, runCleanupPass } from "@/server/compaction/cleanup/pass";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { GEN_NOW_MS, generateWorkspace } from "../gen-large-workspace";
import { armBenchDatabase } from "./compaction-phases";
import { percentile, startWriterLoad, type WriterReport } from "./writer-load";

const WRITER_SESSION = "bench-writer-s";
const BASELINE_SECONDS = 10;
const STATEMENT_DEADLINE_MS = 200;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1]!.startsWith("--") ? process.argv[i + 1]! : fallback;
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

function latencySummary(report: WriterReport) {
  return { inserts: report.inserts, errors: report.errors, p50Ms: percentile(report.latenciesMs, 50), p99Ms: percentile(report.latenciesMs, 99), maxMs: percentile(report.latenciesMs, 100) };
}

/** Generated rows, a live writer session and an approved 3-month policy. */
async function prepare(file: string, messages: number) {
  const summary = generateWorkspace({ file, messages, log: (line) => process.stderr.write(`${line}\n`) });
  await armBenchDatabase(file);
  return summary;
}

/** Counts the pass's warn lines by code (batch rollbacks carry `code`). */
function countingLog() {
  const rollbacks: Record<string, number> = {};
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (!line.includes("compaction batch rolled back")) continue;
        const code = (JSON.parse(line) as { code?: string }).code ?? "unknown";
        rollbacks[code] = (rollbacks[code] ?? 0) + 1;
      }
      done();
    },
  });
  return { log: createLogger({ level: "warn", destination }), rollbacks };
}

async function measure(file: string) {
  // Baseline: the same writer on the same file with no pass running.
  const idle = startWriterLoad({ file, sessionId: WRITER_SESSION, ratePerSec: 50, prefix: "w-idle-" });
  await new Promise((resolve) => setTimeout(resolve, BASELINE_SECONDS * 1000));
  const baseline = latencySummary(await idle.stop());

  const writer = startWriterLoad({ file, sessionId: WRITER_SESSION, ratePerSec: 50, prefix: "w-pass-" });
  const { sqlite } = openDatabase({ file });
  // Generation "now" plus real elapsed time: the cutoff matches the generated
  // ages while the budget, deadlines and yields run on the real clock.
  const offset = GEN_NOW_MS - Date.now();
  const clock = { now: () => Date.now() + offset };
  const { log, rollbacks } = countingLog();
  const slices: Array<{ workMs: number; waitedMs: number; batches: number; reason: string; continueAfterMs: number | null }> = [];
  const batchMs: number[] = [];
  const yieldsMs: number[] = [];
  let batchStarted = 0;
  let result;
  do {
    const slice = { started: performance.now(), waitedMs: 0, batches: 0 };
    result = await runCleanupPass({
      store: createSqliteCompactionStore(wrapSqliteDb({ sqlite, file: sqlite.name }, { reader: false })),
      clock,
      operationId: "bench-limits",
      log,
      wait: async (ms) => {
        const t = performance.now();
        await new Promise((resolve) => setTimeout(resolve, ms));
        const waited = performance.now() - t;
        slice.waitedMs += waited;
        yieldsMs.push(ms);
      },
      beforeBatch: () => {
        batchStarted = performance.now();
      },
      onBatch: () => {
        // Guarded statements and commit of one batch (read and reduce happen before).
        batchMs.push(performance.now() - batchStarted);
        slice.batches += 1;
      },
    });
    const wallMs = performance.now() - slice.started;
    slices.push({ workMs: round(wallMs - slice.waitedMs), waitedMs: round(slice.waitedMs), batches: slice.batches, reason: result.reason, continueAfterMs: result.continueAfterMs });
    // The >= 60 s continuation wait is not slept here; the next slice starts at once.
  } while (result.continuation);
  const during = latencySummary(await writer.stop());
  sqlite.close();
  const operation = result.operation;
  return {
    slices,
    batches: {
      count: batchMs.length,
      p50Ms: percentile(batchMs, 50),
      p99Ms: percentile(batchMs, 99),
      maxMs: percentile(batchMs, 100),
      overDeadline: batchMs.filter((ms) => ms > STATEMENT_DEADLINE_MS).length,
      rolledBack: rollbacks,
    },
    yields: { count: yieldsMs.length, requestedMinMs: yieldsMs.length ? Math.min(...yieldsMs) : 0, requestedMaxMs: yieldsMs.length ? Math.max(...yieldsMs) : 0 },
    operation: { state: operation?.state ?? result.state, changedMessages: operation?.changedMessages ?? 0, payloadBytes: operation?.payloadBytes ?? 0, skipped: operation?.skipped ?? {} },
    writer: { baseline, during },
  };
}

async function main() {
  const messages = Number(arg("messages", "120000"));
  const dir = arg("dir", "/tmp/bench-compaction-limits");
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `base-${messages}.db`);
  const started = performance.now();
  const generated = process.argv.includes("--reuse") && fs.existsSync(base) ? null : await prepare(base, messages);
  const file = path.join(dir, "run.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  fs.copyFileSync(base, file);
  const measured = await measure(file);
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const maxSliceMs = Math.max(...measured.slices.map((s) => s.workMs));
  const result = {
    bench: "compaction-limits",
    messages,
    generated,
    limits: { workBudgetMs: PASS_LIMITS.workBudgetMs, statementDeadlineMs: STATEMENT_DEADLINE_MS, yieldMs: PASS_LIMITS.yieldMs, continueAfterMs: PASS_LIMITS.continueAfterMs },
    ...measured,
    maxSliceWorkMs: maxSliceMs,
    totalSeconds: round((performance.now() - started) / 1000),
    cpus: (await import("node:os")).cpus().length,
    loadAverage: (await import("node:os")).loadavg().map((v) => round(v, 2)),
  };
  console.log(JSON.stringify(result, null, 2));
  const { batches, writer } = measured;
  console.log(
    `compaction limits ${messages} msgs: ${measured.slices.length} slices, max slice work ${round(maxSliceMs / 1000, 2)} s (budget 30 s); ` +
      `${batches.count} batches p99 ${batches.p99Ms} ms max ${batches.maxMs} ms (deadline 200 ms; rolled back ${JSON.stringify(batches.rolledBack)}); ` +
      `${measured.yields.count} yields; writer p99 ${writer.during.p99Ms} ms during vs ${writer.baseline.p99Ms} ms idle baseline`,
  );
}

void main();
