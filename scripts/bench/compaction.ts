// Benchmark: Messages compaction cleanup vs a naive one-statement json_remove.
//   npx tsx --conditions=react-server scripts/bench/compaction.ts [--messages 200000] [--dir /tmp/bench-compaction] [--reuse]
// One generated workspace (scripts/gen-large-workspace.ts) is copied twice;
// each phase runs in its own child process (so peak RSS is per phase) with a
// worker-thread writer inserting 50 messages/s on its own connection:
//   ours  - runCleanupPass until complete (100 ms yields, 30 s budget; the
//           1-minute continuation wait is skipped here and reported);
//   naive - UPDATE messages SET metadata = json_remove(metadata, ...) over
//           exactly the rows ours changed, as one statement;
//   probes - checkTaskEligibility on every task of the untouched copy.
// Prints one JSON object and a one-line summary with the ratios.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { systemClock } from "@/server/clock";
import { createLogger } from "@/server/log";
import { openDatabase } from "@/server/db/client";
import { formatUtc } from "@/lib/time/rfc3339";
import { checkTaskEligibility } from "@/server/compaction/eligibility/eligibility";
import { runCleanupPass } from "@/server/compaction/cleanup/pass";
import { updateRetentionRecord } from "@/server/compaction/policy/record";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { GEN_NOW_MS, generateWorkspace } from "../gen-large-workspace";
import { percentile, startWriterLoad } from "./writer-load";

const WRITER_SESSION = "bench-writer-s";
const MIB = 1024 * 1024;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1]!.startsWith("--") ? process.argv[i + 1]! : fallback;
}

function peakRssMiB(): number {
  return Number((process.resourceUsage().maxRSS / 1024).toFixed(1));
}

function metadataBytes(file: string, where = ""): number {
  const { sqlite } = openDatabase({ file, migrate: false });
  const row = sqlite.prepare(`select coalesce(sum(octet_length(metadata)), 0) as b from messages ${where}`).get() as { b: number };
  sqlite.close();
  return row.b;
}

/** Base database: generated rows, a recent writer session, an approved 3-month policy. */
function prepareBase(file: string, messages: number) {
  const summary = generateWorkspace({ file, messages, log: (l) => process.stderr.write(`${l}\n`) });
  const { sqlite } = openDatabase({ file });
  const now = formatUtc(GEN_NOW_MS);
  sqlite.prepare("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values ('bench-writer', 'writer', 'IN_PROGRESS', ?, ?, ?, ?)").run(now, GEN_NOW_MS, now, GEN_NOW_MS);
  sqlite.prepare("insert into task_sessions (id, task_id, state, updated_at, updated_at_ms) values (?, 'bench-writer', 'RUNNING', ?, ?)").run(WRITER_SESSION, now, GEN_NOW_MS);
  const store = createSqliteCompactionStore(sqlite);
  const { record } = updateRetentionRecord(store, { nowMs: GEN_NOW_MS, mutate: (r) => ({ ...r, policy: { ...r.policy, enabled: true, age: { value: 3, unit: "months" } } }) });
  updateRetentionRecord(store, {
    nowMs: GEN_NOW_MS,
    mutate: (r) => {
      r.runtime.preparation = { state: "ready", choice: "skip", revision: record.policy.revision, operationId: "bench-prep", receipt: { skippedAt: now }, errorCode: null };
      r.runtime.approvedRevision = record.policy.revision;
      return r;
    },
  });
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
  return summary;
}

async function phaseOurs(file: string, idsFile: string) {
  const before = metadataBytes(file);
  const writer = startWriterLoad({ file, sessionId: WRITER_SESSION, ratePerSec: 50, prefix: "w-ours-" });
  const { sqlite } = openDatabase({ file });
  // The pass's clock is the generation "now" plus real elapsed time, so the
  // cutoff matches the generated ages while budgets and deadlines stay real.
  const offset = GEN_NOW_MS - Date.now();
  const clock = { now: () => Date.now() + offset };
  const changed: string[] = [];
  let waitedMs = 0;
  let passes = 0;
  let batches = 0;
  let maxBatchBytes = 0;
  const wall = performance.now();
  // Batch failures (deadline overruns) are logged to stderr with their code.
  const log = createLogger({ level: "warn", destination: process.stderr });
  let result;
  do {
    passes += 1;
    result = await runCleanupPass({
      store: createSqliteCompactionStore(sqlite),
      clock,
      operationId: "bench-run",
      log,
      wait: async (ms) => {
        const t = performance.now();
        await new Promise((r) => setTimeout(r, ms));
        waitedMs += performance.now() - t;
      },
      onBatch: ({ changedIds, bytes }) => {
        batches += 1;
        maxBatchBytes = Math.max(maxBatchBytes, bytes);
        changed.push(...changedIds);
      },
    });
  } while (result.continuation);
  const wallMs = performance.now() - wall;
  const report = await writer.stop();
  sqlite.close();
  fs.writeFileSync(idsFile, JSON.stringify(changed));
  const after = metadataBytes(file);
  const workMs = wallMs - waitedMs;
  return {
    state: result.state,
    reason: result.reason,
    passes,
    batches,
    maxBatchMiB: Number((maxBatchBytes / MIB).toFixed(2)),
    changedMessages: result.operation?.changedMessages ?? 0,
    payloadBytesReported: result.operation?.payloadBytes ?? 0,
    bytesReclaimed: before - after,
    workSeconds: Number((workMs / 1000).toFixed(2)),
    wallSeconds: Number((wallMs / 1000).toFixed(2)),
    mbPerWorkSecond: Number(((before - after) / 1e6 / (workMs / 1000)).toFixed(1)),
    skipped: result.operation?.skipped ?? {},
    writer: { inserts: report.inserts, errors: report.errors, p50Ms: percentile(report.latenciesMs, 50), p99Ms: percentile(report.latenciesMs, 99), maxMs: percentile(report.latenciesMs, 100) },
    peakRssMiB: peakRssMiB(),
  };
}

const NAIVE_PATHS = [
  "$.result",
  "$.normalized.shell_exec.output.stdout",
  "$.normalized.shell_exec.output.stderr",
  "$.normalized.read_file.output.content",
  "$.normalized.code_search.output.files",
  "$.normalized.http_request.response",
  "$.normalized.generic.input",
  "$.normalized.generic.output",
  ...[0, 1, 2, 3].flatMap((i) => ["content", "old_content", "new_content", "diff"].map((f) => `$.normalized.modify_file.mutations[${i}].${f}`)),
];

async function phaseNaive(file: string, idsFile: string) {
  const ids = JSON.parse(fs.readFileSync(idsFile, "utf8")) as string[];
  const { sqlite } = openDatabase({ file });
  sqlite.exec("create temp table bench_targets (id text primary key)");
  const add = sqlite.prepare("insert into bench_targets (id) values (?)");
  sqlite.transaction(() => ids.forEach((id) => add.run(id)))();
  const where = "where id in (select id from bench_targets)";
  const before = (sqlite.prepare(`select sum(octet_length(metadata)) as b from messages ${where}`).get() as { b: number }).b;
  const writer = startWriterLoad({ file, sessionId: WRITER_SESSION, ratePerSec: 50, prefix: "w-naive-" });
  await new Promise((r) => setTimeout(r, 1000));
  const start = performance.now();
  const info = sqlite.prepare(`update messages set metadata = json_remove(metadata, ${NAIVE_PATHS.map((p) => `'${p}'`).join(", ")}) ${where}`).run();
  const workMs = performance.now() - start;
  await new Promise((r) => setTimeout(r, 1000));
  const report = await writer.stop();
  const after = (sqlite.prepare(`select sum(octet_length(metadata)) as b from messages ${where}`).get() as { b: number }).b;
  sqlite.close();
  return {
    changedMessages: info.changes,
    bytesReclaimed: before - after,
    workSeconds: Number((workMs / 1000).toFixed(2)),
    mbPerWorkSecond: Number(((before - after) / 1e6 / (workMs / 1000)).toFixed(1)),
    writer: { inserts: report.inserts, errors: report.errors, p50Ms: percentile(report.latenciesMs, 50), p99Ms: percentile(report.latenciesMs, 99), maxMs: percentile(report.latenciesMs, 100) },
    peakRssMiB: peakRssMiB(),
  };
}

function phaseProbes(file: string) {
  const { sqlite } = openDatabase({ file, migrate: false });
  const cutoffMs = Date.UTC(2026, 2, 1); // GEN_NOW_MS minus 3 months
  const ids = (sqlite.prepare("select id from tasks order by id").all() as Array<{ id: string }>).map((r) => r.id);
  const times: number[] = [];
  const reasons: Record<string, number> = {};
  const store = createSqliteCompactionStore(sqlite);
  for (const taskId of ids) {
    const start = performance.now();
    const verdict = checkTaskEligibility({ store, taskId, cutoffMs, clock: systemClock });
    times.push(performance.now() - start);
    const key = verdict.eligible ? "eligible" : verdict.reason;
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  sqlite.close();
  return { tasks: ids.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: percentile(times, 100), reasons, peakRssMiB: peakRssMiB() };
}

function runPhase(phase: string, file: string, idsFile: string): unknown {
  const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, "--phase", phase, "--db", file, "--ids", idsFile], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * MIB,
  });
  return JSON.parse(out.trim().split("\n").pop()!);
}

async function main() {
  const phase = arg("phase", "");
  if (phase) {
    const file = arg("db", "");
    const ids = arg("ids", "");
    const result = phase === "ours" ? await phaseOurs(file, ids) : phase === "naive" ? await phaseNaive(file, ids) : phaseProbes(file);
    console.log(JSON.stringify(result));
    return;
  }
  const messages = Number(arg("messages", "200000"));
  const dir = arg("dir", "/tmp/bench-compaction");
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `base-${messages}.db`);
  const started = performance.now();
  const generated = process.argv.includes("--reuse") && fs.existsSync(base) ? null : prepareBase(base, messages);
  const copy = (name: string) => {
    const target = path.join(dir, name);
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(target + suffix, { force: true });
    fs.copyFileSync(base, target);
    // Flush the copy's dirty pages now, so writeback does not stall the phase.
    execFileSync("sync");
    return target;
  };
  const idsFile = path.join(dir, "changed-ids.json");
  const probes = runPhase("probes", base, idsFile);
  const ours = runPhase("ours", copy("ours.db"), idsFile) as { mbPerWorkSecond: number; writer: { p99Ms: number }; peakRssMiB: number };
  const naive = runPhase("naive", copy("naive.db"), idsFile) as { mbPerWorkSecond: number; writer: { p99Ms: number }; peakRssMiB: number };
  for (const name of ["ours.db", "naive.db"]) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(path.join(dir, name + suffix), { force: true });
  const result = {
    bench: "compaction",
    messages,
    generated,
    baseFileMiB: Number((fs.statSync(base).size / MIB).toFixed(0)),
    probes,
    ours,
    naive,
    ratios: {
      throughputOursOverNaive: Number((ours.mbPerWorkSecond / naive.mbPerWorkSecond).toFixed(3)),
      writerP99NaiveOverOurs: Number((naive.writer.p99Ms / Math.max(ours.writer.p99Ms, 0.01)).toFixed(1)),
    },
    totalSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    cpus: (await import("node:os")).cpus().length,
  };
  console.log(JSON.stringify(result, null, 2));
  const p = probes as { p50Ms: number; p99Ms: number };
  console.log(
    `compaction ${messages} msgs: ours ${ours.mbPerWorkSecond} MB/s of work vs naive ${naive.mbPerWorkSecond} MB/s (x${result.ratios.throughputOursOverNaive}); ` +
      `writer p99 ${ours.writer.p99Ms} ms vs ${naive.writer.p99Ms} ms (naive x${result.ratios.writerP99NaiveOverOurs}); ` +
      `peak RSS ${ours.peakRssMiB} vs ${naive.peakRssMiB} MiB; probes p50 ${p.p50Ms} ms p99 ${p.p99Ms} ms`,
  );
}

void main();
