// Benchmark: Messages compaction cleanup on PostgreSQL vs a naive single UPDATE.
//   TEST_POSTGRES_URL=postgresql://... npx tsx --conditions=react-server scripts/bench/compaction-postgres.ts [--messages 20000] [--stdout-kib 16] [--rounds 1] [--profile]
// (bash scripts/pg-local.sh start /tmp/pg-bench prints a throwaway server's URL.)
// The same generated workspace is written into two fresh databases; each
// phase runs with a writer in a child process (its own connection) inserting
// 50 messages/s into a live session and timing every insert:
//   ours  - runCleanupPass with the PostgreSQL store until complete (keyset
//           pages, one transaction per batch with row locks, 200 ms
//           statement_timeout; the one-minute continuation wait is skipped);
//   naive - one UPDATE rewriting the same rows' stdout through jsonb (which
//           also reorders keys and rewrites numbers: not even correct).
// Ours runs on the pool the server's pass thread opens (thread-config.ts:
// two sessions, each statement planned once); BENCH_RUNTIME_POOL=1 runs it on
// the runtime's pool settings instead, for comparison.
// Prints one JSON object and a one-line summary with the ratios. `--profile`
// adds where ours spent its time: each statement kind's count and wall time
// (the rest of the work is JavaScript: reducer, hashing, driver decoding).
import { performance } from "node:perf_hooks";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { formatUtc } from "@/lib/time/rfc3339";
import { runCleanupPass } from "@/server/compaction/cleanup/pass";
import { createPgCompactionStore } from "@/server/compaction/store/pg-store";
import { createEmptyPgDatabase } from "@/server/db/pg/test-db";
import { createPgDb, type PgDb } from "@/server/db/pg/pg-db";
import { readPgConfig } from "@/server/db/pg/config";
import { createLogger } from "@/server/log";
import { pgPassConfig } from "@/server/compaction/thread/thread-config";
import { percentile } from "./writer-load";
import { seedShellWorkspace, WRITER_SESSION, NOW_MS } from "./lib/pg-shell-workspace";

const MIB = 1024 * 1024;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

// The writer runs plain JavaScript in a child process with its own
// node-postgres connection (its own event loop: the pass cannot delay it).
// Latency runs from each insert's scheduled time, so a wait behind the
// previous insert counts.
const WRITER_SOURCE = `
const workerData = JSON.parse(process.env.BENCH_WRITER);
const { Client } = require(workerData.pgPath);
const client = new Client({ connectionString: workerData.url });
const latencies = [];
let n = 0;
let chain = Promise.resolve();
client.connect().then(() => {
  const timer = setInterval(() => {
    const scheduled = performance.now();
    const id = workerData.prefix + (n++);
    chain = chain.then(() => client.query("insert into messages (id, session_id, author_type, type, content, metadata, created_at, created_at_ms, updated_at, updated_at_ms) values ($1, $2, 'user', 'message', 'hi', '{}', $3, $4, $3, $4)",
      [id, workerData.sessionId, workerData.now, String(workerData.nowMs)])).then(() => { latencies.push(performance.now() - scheduled); });
  }, 1000 / workerData.rate);
  process.on("message", () => { clearInterval(timer); chain.then(() => client.end()).then(() => process.send(latencies, () => process.exit(0))); });
  process.send("ready");
});
`;

async function startWriter(url: string, prefix: string): Promise<{ stop(): Promise<number[]> }> {
  const pgPath = createRequire(path.join(process.cwd(), "package.json")).resolve("pg");
  const data = { url, pgPath, prefix, sessionId: WRITER_SESSION, rate: 50, now: formatUtc(NOW_MS), nowMs: NOW_MS };
  const child = spawn(process.execPath, ["-e", WRITER_SOURCE], { stdio: ["ignore", "inherit", "inherit", "ipc"], env: { ...process.env, BENCH_WRITER: JSON.stringify(data) } });
  await new Promise((resolve) => child.once("message", resolve));
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once("message", (latencies) => resolve(latencies as number[]));
        child.send("stop");
      }),
  };
}

const metadataBytes = async (db: PgDb) => (await db.one<{ b: number }>(`select coalesce(sum(octet_length(metadata)), 0)::bigint as b from messages`))!.b;
const writerStats = (latencies: number[]) => ({ inserts: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: percentile(latencies, 100) });

type StatementProfile = Record<string, { count: number; ms: number }>;

/** Times every statement sent through `db` (keyed by its first words), for --profile. */
function profiled(db: PgDb, profile: StatementProfile): PgDb {
  const keyOf = (sql: string) => sql.replace(/\s+/g, " ").trim().slice(0, 48);
  const timed =
    <A extends unknown[], R>(fn: (sql: string, ...rest: A) => Promise<R>) =>
    async (sql: string, ...rest: A): Promise<R> => {
      const started = performance.now();
      try {
        return await fn(sql, ...rest);
      } finally {
        const entry = (profile[keyOf(sql)] ??= { count: 0, ms: 0 });
        entry.count += 1;
        entry.ms += performance.now() - started;
      }
    };
  const transaction: PgDb["transaction"] = async (fn, options) => {
    const started = performance.now();
    try {
      return await db.transaction(fn, options);
    } finally {
      const entry = (profile["(whole transactions, statements above included)"] ??= { count: 0, ms: 0 });
      entry.count += 1;
      entry.ms += performance.now() - started;
    }
  };
  return Object.assign(Object.create(db) as PgDb, { query: timed(db.query.bind(db)), one: timed(db.one.bind(db)), run: timed(db.run.bind(db)), exec: timed(db.exec.bind(db)), transaction });
}

async function phaseOurs(url: string, profile: StatementProfile | null) {
  const client = createPgDb(readPgConfig(url, { PG_POOL_MAX: "1" }));
  const before = await metadataBytes(client);
  const writer = await startWriter(url, "w-ours-");
  const offset = NOW_MS - Date.now();
  const clock = { now: () => Date.now() + offset };
  const log = createLogger({ level: "warn", destination: process.stderr });
  const changed: string[] = [];
  let waitedMs = 0;
  let passes = 0;
  let batches = 0;
  const wall = performance.now();
  let result;
  // The pass on a pool of its own, as the server's pass thread opens it (thread-config.ts).
  const db = createPgDb(process.env.BENCH_RUNTIME_POOL ? readPgConfig(url, {}) : pgPassConfig(readPgConfig(url, {})));
  const store = createPgCompactionStore(profile ? profiled(db, profile) : db);
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
      },
      onBatch: ({ changedIds }) => {
        batches += 1;
        changed.push(...changedIds);
      },
    });
  } while (result.continuation);
  const wallMs = performance.now() - wall;
  await db.close();
  const latencies = await writer.stop();
  const after = await metadataBytes(client);
  await client.close();
  const workMs = wallMs - waitedMs;
  return { state: result.state, passes, batches, changedRows: changed.length, wallMs: Math.round(wallMs), workMs: Math.round(workMs), reclaimedBytes: before - after, bytesPerWorkSecond: Math.round(((before - after) / workMs) * 1000), writer: writerStats(latencies), changed };
}

async function phaseNaive(url: string, ids: string[]) {
  const client = createPgDb(readPgConfig(url, { PG_POOL_MAX: "1", PG_STATEMENT_TIMEOUT_MS: "0", PG_LOCK_TIMEOUT_MS: "0" }));
  const before = await metadataBytes(client);
  const writer = await startWriter(url, "w-naive-");
  await new Promise((r) => setTimeout(r, 500));
  const t = performance.now();
  // One statement over exactly the rows ours changed; the writer keeps its own process and connection.
  await client.run(`update messages set metadata = (metadata::jsonb #- '{normalized,shell_exec,output,stdout}')::text where id = any($1::text[])`, [ids]);
  const workMs = performance.now() - t;
  await new Promise((r) => setTimeout(r, 500));
  const latencies = await writer.stop();
  const after = await metadataBytes(client);
  await client.close();
  return { rows: ids.length, workMs: Math.round(workMs), reclaimedBytes: before - after, bytesPerWorkSecond: Math.round(((before - after) / workMs) * 1000), writer: writerStats(latencies) };
}

/** One round: the workspace seeded into two fresh databases, ours on one, naive on the other over the rows ours changed. */
async function round(messages: number, stdoutBytes: number, profile: StatementProfile | null) {
  const ours = await createEmptyPgDatabase();
  const naive = await createEmptyPgDatabase();
  try {
    for (const db of [ours, naive]) {
      process.stderr.write(`seeding ${messages} messages into ${db.name}...\n`);
      await seedShellWorkspace(db.url, messages, stdoutBytes);
    }
    const { changed, ...oursReport } = await phaseOurs(ours.url, profile);
    const naiveReport = await phaseNaive(naive.url, changed);
    return { load: os.loadavg().map((n) => Number(n.toFixed(2))), ratio: Number((oursReport.bytesPerWorkSecond / naiveReport.bytesPerWorkSecond).toFixed(3)), ours: oursReport, naive: naiveReport };
  } finally {
    await ours.drop();
    await naive.drop();
  }
}

async function main() {
  const messages = Number(arg("messages", "20000"));
  const stdoutBytes = Number(arg("stdout-kib", "16")) * 1024;
  const rounds = Number(arg("rounds", "1"));
  const profile: StatementProfile | null = process.argv.includes("--profile") ? {} : null;
  const results: Array<Awaited<ReturnType<typeof round>>> = [];
  for (let i = 0; i < rounds; i++) results.push(await round(messages, stdoutBytes, profile));
  const ratios = results.map((result) => result.ratio);
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : Number(((sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2).toFixed(3));
  const statements = profile
    ? Object.fromEntries(Object.entries(profile).sort((a, b) => b[1].ms - a[1].ms).map(([sql, { count, ms }]) => [sql, { count, ms: Math.round(ms) }]))
    : undefined;
  const last = results.at(-1)!;
  const report = { engine: "postgres", messages, stdoutBytes, rounds, ratios, medianRatio: median, ours: last.ours, naive: last.naive, results, ...(statements ? { statements } : {}) };
  console.log(JSON.stringify(report, null, 2));
  const writerP99 = (side: "ours" | "naive") => Math.max(...results.map((result) => result[side].writer.p99Ms));
  console.log(
    `postgres: ours ${(last.ours.bytesPerWorkSecond / MIB).toFixed(1)} MiB/s of work vs naive single UPDATE ${(last.naive.bytesPerWorkSecond / MIB).toFixed(1)} MiB/s in the last round; ` +
      `ratio per round ${ratios.join(" / ")}, median ${median} (target >= 0.5); writer p99 at most ${writerP99("ours")} ms ours, ${writerP99("naive")} ms naive (target <= 250 ms); ` +
      `reclaimed ${(last.ours.reclaimedBytes / MIB).toFixed(1)} vs ${(last.naive.reclaimedBytes / MIB).toFixed(1)} MiB`,
  );
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
