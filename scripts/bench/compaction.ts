// Benchmark: Messages compaction cleanup vs a naive one-statement json_remove.
//   npx tsx --conditions=react-server scripts/bench/compaction.ts
//     [--messages 200000] [--huge 4] [--task-messages 500000] [--pretty-huge] [--rounds 2] [--dir /tmp/bench-compaction] [--reuse]
//   ... compaction.ts --engine postgres [--messages 20000] [--stdout-kib 16] [--rounds 4]: the
//     same comparison on PostgreSQL (TEST_POSTGRES_URL), run by compaction-postgres.ts.
// One generated workspace (scripts/gen-large-workspace.ts, `--huge` rows of
// ~30 MB, optionally one idle task of `--task-messages` messages; with
// `--pretty-huge` the huge rows are stored pretty-printed, which SQL cannot
// judge, so the JS reducer reads them) is copied
// fresh for every side of every round; the order alternates across rounds
// (ours first, then naive first, ...). Each side runs in its own child
// process with a concurrent writer at 50 inserts/s (scripts/bench/compaction-phases.ts):
//   ours  - runCleanupPass until complete (continuation waits skipped), on
//           the pass's own connection with its checkpoint thread, as the
//           slice thread runs it (one side alone with inline checkpoints:
//           `--phase ours --db COPY --inline-checkpoints`);
//   naive - ONE `UPDATE ... json_remove(...)` over every valid tool row of
//           every task idle since the cutoff (no gates, guard or marker).
// Per side: bytes reclaimed per second of work and of wall time, CPU seconds
// of the whole process, writer p99,
// peak RSS, largest row compacted, skipped counts by reason. Prints one JSON
// object and a one-line summary with the ratios (median over rounds).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase } from "@/server/db/client";
import { formatUtc } from "@/lib/time/rfc3339";
import { GEN_NOW_MS, generateWorkspace } from "../gen-large-workspace";
import { armBenchDatabase, phaseNaive, phaseOurs, phaseProbes, removeDb } from "./compaction-phases";

const MIB = 1024 * 1024;
const DAY = 86_400_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1]!.startsWith("--") ? process.argv[i + 1]! : fallback;
}

/** One idle task with `count` messages in one session (1 tool row in 10, a turn per 100 messages). */
function seedBigTask(file: string, count: number) {
  const { sqlite } = openDatabase({ file });
  const ms = GEN_NOW_MS - 365 * DAY;
  const at = formatUtc(ms);
  sqlite.prepare("insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values ('big-task', 'big', 'COMPLETED', ?, ?, ?, ?)").run(at, ms, at, ms);
  sqlite.prepare("insert into task_sessions (id, task_id, state, started_at, started_at_ms, updated_at, updated_at_ms, completed_at, completed_at_ms) values ('big-s', 'big-task', 'COMPLETED', ?, ?, ?, ?, ?, ?)").run(at, ms, at, ms, at, ms);
  const turn = sqlite.prepare("insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values (?, 'big-s', ?, ?, ?, ?)");
  const message = sqlite.prepare(
    "insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms) values (?, 'big-s', ?, 'agent', ?, 'c', ?, ?, ?, ?, ?, ?)",
  );
  const stdout = "ok line of output\n".repeat(100);
  sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const turnId = `big-u${Math.floor(i / 100)}`;
      if (i % 100 === 0) turn.run(turnId, at, ms, at, ms);
      const tool = i % 10 === 0;
      const metadata = tool ? JSON.stringify({ tool_call_id: `b${i}`, normalized: { kind: "shell_exec", shell_exec: { command: "make", output: { exit_code: 0, stdout } } } }) : '{"text_length":80}';
      message.run(`big-m${i}`, turnId, tool ? "tool_execute" : "message", metadata, tool ? `b${i}` : null, at, ms, at, ms);
    }
  })();
  sqlite.close();
}

/**
 * Re-stores the huge rows indented by two spaces. The generator's rows hold
 * only strings and small integers, so JSON.parse and stringify keep them
 * exact (never done to a real workspace's rows).
 */
function prettyPrintHugeRows(file: string): number {
  const { sqlite } = openDatabase({ file });
  const rows = sqlite.prepare("select rowid, metadata from messages where octet_length(metadata) >= ?").all(8 * MIB) as Array<{ rowid: number; metadata: string }>;
  const update = sqlite.prepare("update messages set metadata = ? where rowid = ?");
  for (const row of rows) update.run(JSON.stringify(JSON.parse(row.metadata), null, 2), row.rowid);
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
  return rows.length;
}

type BaseOptions = { messages: number; huge: number; taskMessages: number; prettyHuge: boolean };

/** Base database: generated rows, the optional big task, a live writer session, an approved 3-month policy. */
async function prepareBase(file: string, options: BaseOptions) {
  const summary = generateWorkspace({ file, messages: options.messages, hugeRows: options.huge, log: (l) => process.stderr.write(`${l}\n`) });
  if (options.prettyHuge) process.stderr.write(`pretty-printed ${prettyPrintHugeRows(file)} huge rows\n`);
  if (options.taskMessages > 0) seedBigTask(file, options.taskMessages);
  await armBenchDatabase(file);
  return summary;
}

function runPhase(phase: string, file: string): Side {
  const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, "--phase", phase, "--db", file], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * MIB,
  });
  return JSON.parse(out.trim().split("\n").pop()!) as Side;
}

type Side = { mbPerWorkSecond: number; mbPerWallSecond: number; writer: { p99Ms: number }; peakRssMiB: number; largestRowCompactedMB: number; skipped: Record<string, number> };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const ratio = (a: number, b: number) => Number((a / Math.max(b, 1e-9)).toFixed(3));

async function main() {
  if (arg("engine", "sqlite") === "postgres") {
    const args = process.argv.slice(2).filter((value, i, all) => value !== "--engine" && all[i - 1] !== "--engine");
    execFileSync(process.execPath, [...process.execArgv, path.join(path.dirname(process.argv[1]!), "compaction-postgres.ts"), ...args], { stdio: "inherit" });
    return;
  }
  const phase = arg("phase", "");
  if (phase) {
    const file = arg("db", "");
    const result = phase === "ours" ? await phaseOurs(file, { inlineCheckpoints: process.argv.includes("--inline-checkpoints") }) : phase === "naive" ? await phaseNaive(file) : await phaseProbes(file);
    console.log(JSON.stringify(result));
    return;
  }
  const options: BaseOptions = {
    messages: Number(arg("messages", "200000")),
    huge: Number(arg("huge", "4")),
    taskMessages: Number(arg("task-messages", "0")),
    prettyHuge: process.argv.includes("--pretty-huge"),
  };
  const rounds = Math.max(2, Number(arg("rounds", "2")));
  const dir = arg("dir", "/tmp/bench-compaction");
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `base-${options.messages}-${options.huge}-${options.taskMessages}${options.prettyHuge ? "-pretty" : ""}.db`);
  const started = performance.now();
  const generated = process.argv.includes("--reuse") && fs.existsSync(base) ? null : await prepareBase(base, options);
  const fresh = (name: string) => {
    const target = path.join(dir, name);
    removeDb(target);
    fs.copyFileSync(base, target);
    // Flush the copy's dirty pages now, so writeback does not stall the side.
    execFileSync("sync");
    return target;
  };
  const probes = runPhase("probes", base);
  const results: Array<{ round: number; order: string[]; ours: Side; naive: Side }> = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["ours", "naive"] : ["naive", "ours"];
    const sides: Record<string, Side> = {};
    for (const side of order) {
      const file = fresh(`${side}.db`);
      sides[side] = runPhase(side, file);
      removeDb(file);
    }
    results.push({ round, order, ours: sides.ours!, naive: sides.naive! });
  }
  const work = results.map((r) => ratio(r.ours.mbPerWorkSecond, r.naive.mbPerWorkSecond));
  const wall = results.map((r) => ratio(r.ours.mbPerWallSecond, r.naive.mbPerWallSecond));
  const summary = {
    workOursOverNaive: median(work),
    wallOursOverNaive: median(wall),
    oursWriterP99Ms: Math.max(...results.map((r) => r.ours.writer.p99Ms)),
    naiveWriterP99Ms: Math.max(...results.map((r) => r.naive.writer.p99Ms)),
    oursPeakRssMiB: Math.max(...results.map((r) => r.ours.peakRssMiB)),
    naivePeakRssMiB: Math.max(...results.map((r) => r.naive.peakRssMiB)),
    oursStatementDeadlineSkips: Math.max(...results.map((r) => r.ours.skipped.statement_deadline ?? 0)),
    oursLargestRowMB: Math.min(...results.map((r) => r.ours.largestRowCompactedMB)),
  };
  const result = {
    bench: "compaction",
    options,
    rounds,
    generated,
    baseFileMiB: Number((fs.statSync(base).size / MIB).toFixed(0)),
    probes,
    results,
    ratiosPerRound: { work, wall },
    summary,
    totalSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    cpus: (await import("node:os")).cpus().length,
    loadAverage: (await import("node:os")).loadavg().map((n) => Number(n.toFixed(1))),
  };
  console.log(JSON.stringify(result, null, 2));
  const p = probes as unknown as { p99Ms: number; bigTaskMs: number | null };
  console.log(
    `compaction ${options.messages} msgs (+${options.taskMessages}-msg task, ${options.huge} huge${options.prettyHuge ? " pretty-printed" : ""}), ${rounds} alternating rounds: ` +
      `work ${summary.workOursOverNaive}x naive, wall ${summary.wallOursOverNaive}x naive (per round ${work.join("/")} and ${wall.join("/")}); ` +
      `writer p99 ours ${summary.oursWriterP99Ms} ms vs naive ${summary.naiveWriterP99Ms} ms; peak RSS ${summary.oursPeakRssMiB} vs ${summary.naivePeakRssMiB} MiB; ` +
      `largest row compacted ${summary.oursLargestRowMB} MB, statement_deadline ${summary.oursStatementDeadlineSkips}; probes p99 ${p.p99Ms} ms, big task ${p.bigTaskMs ?? "-"} ms`,
  );
}

void main();
