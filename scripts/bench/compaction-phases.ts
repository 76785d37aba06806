// The two sides of scripts/bench/compaction.ts, each run in its own child
// process on its own fresh copy (so peak RSS is per side), with a
// worker-thread writer inserting 50 messages/s on a separate connection.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { systemClock } from "@/server/clock";
import { createLogger } from "@/server/log";
import { openDatabase } from "@/server/db/client";
import { openPassStore } from "@/server/compaction/thread/pass-connection";
import { checkTaskEligibility } from "@/server/compaction/eligibility/eligibility";
import { runCleanupPass } from "@/server/compaction/cleanup/pass";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { TOOL_MESSAGE_TYPES, type CompactionStore } from "@/server/compaction/store";
import { formatUtc } from "@/lib/time/rfc3339";
import { GEN_NOW_MS } from "../gen-large-workspace";
import { percentile, startWriterLoad } from "./writer-load";
import { armPolicyOn } from "@/server/compaction/test-support";

export const WRITER_SESSION = "bench-writer-s";
export const CUTOFF_MS = Date.UTC(2026, 2, 1); // GEN_NOW_MS minus the 3-month policy
const MIB = 1024 * 1024;

/** CPU of the whole process (every thread: the side's own, its checkpoint thread and the writer load's) since `start`. */
const cpuSecondsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return round((used.user + used.system) / 1e6, 2);
};
const peakRssMiB = () => Number((process.resourceUsage().maxRSS / 1024).toFixed(1));
const mb = (bytes: number) => bytes / 1e6;
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

function metadataBytes(file: string): number {
  const { sqlite } = openDatabase({ file, migrate: false });
  const row = sqlite.prepare("select coalesce(sum(octet_length(metadata)), 0) as b from messages").get() as { b: number };
  sqlite.close();
  return row.b;
}

function writerSummary(report: { inserts: number; errors: number; latenciesMs: number[] }) {
  return { inserts: report.inserts, errors: report.errors, p50Ms: percentile(report.latenciesMs, 50), p99Ms: percentile(report.latenciesMs, 99), maxMs: percentile(report.latenciesMs, 100) };
}

/** Counts rows whose bodies the JS reducer had to read (SQL could not judge them). */
function countingStore(store: CompactionStore, counts: { reducerRows: number }): CompactionStore {
  const wrapped: CompactionStore = {
    ...store,
    writeTransaction: (fn) => store.writeTransaction(() => fn(wrapped)),
    readToolRowBodies: (options) => {
      counts.reducerRows += options.rows.length;
      return store.readToolRowBodies(options);
    },
  };
  return wrapped;
}

/** `inlineCheckpoints`: the pass's connection checkpoints after its own commits, as before the checkpoint thread (for side-by-side runs). */
export async function phaseOurs(file: string, options: { inlineCheckpoints?: boolean } = {}) {
  const before = metadataBytes(file);
  const writer = startWriterLoad({ file, sessionId: WRITER_SESSION, ratePerSec: 50, prefix: "w-ours-" });
  // The connection and store the slice thread opens (its page cache,
  // collections and checkpoint thread included).
  const pass = openPassStore(file, options.inlineCheckpoints ? {} : { checkpointThread: { root: process.cwd() } });
  const cpu = process.cpuUsage();
  // Generation "now" plus real elapsed time: the cutoff matches the
  // generated ages while budgets and deadlines stay real.
  const offset = GEN_NOW_MS - Date.now();
  const clock = { now: () => Date.now() + offset };
  const counts = { reducerRows: 0 };
  const store = countingStore(pass.store, counts);
  const batchMs: number[] = [];
  let waitedMs = 0;
  let passes = 0;
  let maxBatchBytes = 0;
  let lastBatch = performance.now();
  const wall = performance.now();
  const log = createLogger({ level: "warn", destination: process.stderr });
  let result;
  do {
    passes += 1;
    result = await runCleanupPass({
      store,
      clock,
      operationId: "bench-run",
      log,
      wait: async (ms) => {
        const t = performance.now();
        await new Promise((r) => setTimeout(r, ms));
        waitedMs += performance.now() - t;
        lastBatch = performance.now();
      },
      beforeBatch: () => void (lastBatch = performance.now()),
      onBatch: ({ bytes }) => {
        batchMs.push(performance.now() - lastBatch);
        maxBatchBytes = Math.max(maxBatchBytes, bytes);
      },
    });
    // The 1-minute continuation wait is skipped here (counted as passes).
  } while (result.continuation);
  // The last commits' checkpoints are part of the work.
  await pass.close();
  const wallMs = performance.now() - wall;
  const cpuSeconds = cpuSecondsSince(cpu);
  const report = await writer.stop();
  const { sqlite } = openDatabase({ file, migrate: false });
  const largest = sqlite
    .prepare("select max(octet_length(metadata) + json_extract(metadata, '$.payload_retention.removed_bytes')) as b from messages where json_extract(metadata, '$.payload_retention.removed_bytes') is not null")
    .get() as { b: number | null };
  sqlite.close();
  const reclaimed = before - metadataBytes(file);
  const workMs = wallMs - waitedMs;
  return {
    state: result.state,
    passes,
    batches: batchMs.length,
    batchP99Ms: percentile(batchMs, 99),
    maxBatchMiB: round(maxBatchBytes / MIB, 2),
    changedMessages: result.operation?.changedMessages ?? 0,
    reducerFallbackRows: counts.reducerRows,
    bytesReclaimed: reclaimed,
    workSeconds: round(workMs / 1000, 2),
    wallSeconds: round(wallMs / 1000, 2),
    cpuSeconds,
    mbPerWorkSecond: round(mb(reclaimed) / (workMs / 1000)),
    mbPerWallSecond: round(mb(reclaimed) / (wallMs / 1000)),
    largestRowCompactedMB: round(mb(largest.b ?? 0), 2),
    skipped: result.operation?.skipped ?? {},
    writer: writerSummary(report),
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

/** One UPDATE over every valid tool row of every task idle since the cutoff: no gates, no guard, no marker. */
export async function phaseNaive(file: string) {
  const before = metadataBytes(file);
  const { sqlite } = openDatabase({ file });
  const where = `where type in (${TOOL_MESSAGE_TYPES.map((t) => `'${t}'`).join(", ")}) and json_valid(metadata)
    and session_id in (select s.id from task_sessions s join tasks t on t.id = s.task_id where t.updated_at_ms < ${CUTOFF_MS})`;
  const largest = sqlite.prepare(`select max(octet_length(metadata)) as b from messages ${where}`).get() as { b: number | null };
  const writer = startWriterLoad({ file, sessionId: WRITER_SESSION, ratePerSec: 50, prefix: "w-naive-" });
  await new Promise((r) => setTimeout(r, 1000));
  const start = performance.now();
  const cpu = process.cpuUsage();
  const info = sqlite.prepare(`update messages set metadata = json_remove(metadata, ${NAIVE_PATHS.map((p) => `'${p}'`).join(", ")}) ${where}`).run();
  const workMs = performance.now() - start;
  const cpuSeconds = cpuSecondsSince(cpu);
  await new Promise((r) => setTimeout(r, 1000));
  const report = await writer.stop();
  sqlite.close();
  const reclaimed = before - metadataBytes(file);
  return {
    changedMessages: info.changes,
    bytesReclaimed: reclaimed,
    workSeconds: round(workMs / 1000, 2),
    wallSeconds: round(workMs / 1000, 2),
    cpuSeconds,
    mbPerWorkSecond: round(mb(reclaimed) / (workMs / 1000)),
    mbPerWallSecond: round(mb(reclaimed) / (workMs / 1000)),
    largestRowCompactedMB: round(mb(largest.b ?? 0), 2),
    skipped: {},
    writer: writerSummary(report),
    peakRssMiB: peakRssMiB(),
  };
}

/** Full eligibility probe of every task (real clock), on the untouched base. */
export async function phaseProbes(file: string) {
  const { sqlite } = openDatabase({ file, migrate: false });
  const ids = (sqlite.prepare("select id from tasks order by id").all() as Array<{ id: string }>).map((r) => r.id);
  const times: number[] = [];
  const reasons: Record<string, number> = {};
  const store = createSqliteCompactionStore(wrapSqliteDb({ sqlite, file }, { reader: false }));
  let bigTaskMs: number | null = null;
  for (const taskId of ids) {
    const start = performance.now();
    const verdict = await checkTaskEligibility({ store, taskId, cutoffMs: CUTOFF_MS, clock: systemClock });
    const ms = performance.now() - start;
    times.push(ms);
    if (taskId === "big-task") bigTaskMs = round(ms, 2);
    const key = verdict.eligible ? "eligible" : verdict.reason;
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  sqlite.close();
  return { tasks: ids.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: percentile(times, 100), bigTaskMs, reasons, peakRssMiB: peakRssMiB() };
}

export function removeDb(file: string) {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
}

/** A live writer session (the writer load's target) and an approved 3-month policy (preparation skipped) in a generated database. */
export async function armBenchDatabase(file: string): Promise<void> {
  const { sqlite } = openDatabase({ file });
  const now = formatUtc(GEN_NOW_MS);
  sqlite.prepare("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values ('bench-writer', 'writer', 'IN_PROGRESS', ?, ?, ?, ?)").run(now, GEN_NOW_MS, now, GEN_NOW_MS);
  sqlite.prepare("insert into task_sessions (id, task_id, state, updated_at, updated_at_ms) values (?, 'bench-writer', 'RUNNING', ?, ?)").run(WRITER_SESSION, now, GEN_NOW_MS);
  await armPolicyOn(createSqliteCompactionStore(wrapSqliteDb({ sqlite, file }, { reader: false })), { value: 3, unit: "months" }, GEN_NOW_MS);
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
}
