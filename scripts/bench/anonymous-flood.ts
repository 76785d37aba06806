// #26's benchmark: can an anonymous client or a viewer stall the server?
// Starts the production server (`next start` on the built app, a fresh temp
// SQLite database with a viewer session, one 32 MiB shell-output row and a
// 500,000-message task), runs each load from a niced child process, probes GET /api/v1/auth/me at a fixed rate from a thread of its own
// (latency counted from each request's scheduled time, so a held event loop
// is charged in full), and measures its p95:
//   idle                  the baseline, in the same run (after a warm-up),
//                         and again right before each load below
//   refused sign-ins      5,000 wrong-password sign-ins from one address
//                         (audit rows before and after: the bound)
//   anonymous route       5,000 anonymous GET /api/v1/auth/me, 20 at a time:
//                         what any flood of API requests costs by itself
//                         (401 before any read: the baseline of the one above)
//   short paths           20 parallel loops of GET /a/b: what such a flood
//                         costs by itself (the baseline of the next one)
//   long paths            20 parallel loops of GET /a<15,000 x>/b: what the
//                         path's length costs, without a dot
//   dotted paths          20 parallel loops of GET /a<15,000 dots>/b
//   shell output          3 parallel loops of GET .../shell-output of the 32 MiB row
//   conversation          3 parallel loops of GET /api/v1/tasks/{id} of the
//                         task with the 32 MiB row (its tool summaries)
//   task export           a viewer exports a 500,000-message task (the
//                         server's resident memory sampled throughout)
// In-process, on this thread, what the previous code did per request (the
// naive baselines): the old extension regex over one dotted path, and a
// lossless-json parse of the 32 MiB row, and (SQLite) the conversation's
// summaries read on the server's thread and the one-piece export of the
// 500,000-message task.
// Needs `npm run build` first (the app and dist/read-thread.cjs).
// `--postgres URL` runs the same on a fresh database of that PostgreSQL
// server (created, migrated and dropped) instead of a SQLite file.
//   npx tsx --conditions=react-server scripts/bench/anonymous-flood.ts [--port 3231] [--rate 20] [--seconds 8] [--postgres URL]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { parse } from "lossless-json";
import { hashSessionToken } from "@/server/auth/current-user";
import { exportTask } from "@/server/workspace/export/export-task";
import { listConversationRows } from "@/server/workspace/sqlite-reads";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import { arg, startAppServer } from "./lib/app-server";
import { openBenchDb, type BenchDb } from "./lib/bench-db";

const PORT = Number(arg("port", "3231"));
const RATE = Number(arg("rate", "20"));
const SECONDS = Number(arg("seconds", "8"));
const BASE = `http://127.0.0.1:${PORT}`;
const VIEWER_TOKEN = "bench-viewer-token";
const ROW_BYTES = 32 * 1024 * 1024;
const POSTGRES = process.argv.includes("--postgres") ? arg("postgres", "") : null;

const PROBE_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const interval = 1000 / workerData.rate;
const total = Math.round(workerData.seconds * workerData.rate);
const latencies = [];
let errors = 0, done = 0;
const start = performance.now();
for (let i = 0; i < total; i++) {
  const scheduled = start + i * interval;
  setTimeout(async () => {
    try {
      const res = await fetch(workerData.url, { headers: { cookie: workerData.cookie } });
      await res.text();
      if (res.status !== 200) errors++;
    } catch { errors++; }
    latencies.push(performance.now() - scheduled);
    if (++done === total) parentPort.postMessage({ latencies, errors });
  }, Math.max(0, scheduled - performance.now()));
}
`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

type Probe = { p50: number; p95: number; max: number; probes: number; errors: number; load1: number };

function probeOnce(): Promise<{ latencies: number[]; errors: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url: `${BASE}/api/v1/auth/me`, cookie: `wsr_session=${VIEWER_TOKEN}`, rate: RATE, seconds: SECONDS } });
    worker.once("message", (result: { latencies: number[]; errors: number }) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once("error", reject);
  });
}

function summarize(latencies: number[], errors: number): Probe {
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies), probes: latencies.length, errors, load1: os.loadavg()[0]! };
}

/** Probes for SECONDS, then again while `busy` has not settled: a load that outlasts one probe is measured whole. */
async function probeWhile(busy?: Promise<unknown>): Promise<Probe> {
  let settled = !busy;
  void busy?.finally(() => (settled = true));
  const latencies: number[] = [];
  let errors = 0;
  do {
    const once = await probeOnce();
    latencies.push(...once.latencies);
    errors += once.errors;
  } while (!settled);
  return summarize(latencies, errors);
}

// The attacking clients run in a child process ten nice steps down: on this
// one shared 2-core machine they would otherwise take the server's cores,
// which a remote attacker's own CPU never does. Each loop sends its request
// again as soon as the answer is read; the child prints what it sent and the
// answers' statuses (and bytes) as JSON.
const ATTACKER_SOURCE = `
const job = JSON.parse(process.argv[1]);
const statuses = {};
let sent = 0, bytes = 0, failed = 0;
const deadline = job.seconds ? Date.now() + job.seconds * 1000 : Infinity;
const more = () => Date.now() < deadline && (job.count === undefined || sent < job.count);
async function once() {
  sent += 1;
  const res = await fetch(job.url, { method: job.method ?? "GET", headers: job.headers ?? {}, body: job.body === undefined ? undefined : job.body.replace("#", String(sent)), redirect: "manual" });
  const reader = res.body.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) bytes += part.value.byteLength;
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
}
Promise.all(Array.from({ length: job.parallel }, async () => { while (more()) await once().catch(() => { failed += 1; }); }))
  .then(() => console.log(JSON.stringify({ sent, statuses, bytes, failed })));
`;

type Attack = { url: string; parallel: number; seconds?: number; count?: number; method?: string; headers?: Record<string, string>; body?: string };
type AttackResult = { sent: number; statuses: Record<string, number>; bytes: number; failed: number; seconds: number };

/** Starts the attack in its own niced process; resolves with what it sent once it ends. */
function attack(job: Attack): Promise<AttackResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("nice", ["-n", "10", process.execPath, "-e", ATTACKER_SOURCE, JSON.stringify(job)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`attacker exited ${code}`));
      resolve({ ...(JSON.parse(out) as Omit<AttackResult, "seconds">), seconds: (performance.now() - started) / 1000 });
    });
  });
}

/**
 * The attack and the probe at once: the probe runs at least SECONDS and until
 * the attack ends. Before it, SECONDS of idle probing: other sessions' load
 * on this shared machine changes from minute to minute, so each load is also
 * read against the idle p95 measured right before it.
 */
async function probeDuring(job: Attack): Promise<Probe & { idleBefore: { p50: number; p95: number; load1: number }; attack: AttackResult }> {
  const idle = await probeWhile();
  const running = attack(job);
  const probe = await probeWhile(running);
  return { ...probe, idleBefore: { p50: idle.p50, p95: idle.p95, load1: idle.load1 }, attack: await running };
}

function shellRow(): string {
  const line = "npm test: ok ✓ 123456789 abcdefghij\\n";
  const stdout = line.repeat(Math.ceil(ROW_BYTES / line.length)).slice(0, ROW_BYTES);
  return `{"tool_call_id":"c1","normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","work_dir":"/repo","output":{"exit_code":0,"stdout":"${stdout}","stderr":"","truncated":false}}}}`;
}

const EXPORT_MESSAGES = 500_000;
const FILLER = "x".repeat(100);

/** Resident memory of `pid` and every process under it (`next start` may run its server in a child). */
function treeRssBytes(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const next = stack.pop()!;
    try {
      const rss = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${next}/status`, "utf8"));
      total += rss ? Number(rss[1]) * 1024 : 0;
    } catch {
      // gone meanwhile
    }
    stack.push(...(children.get(next) ?? []));
  }
  return total;
}

async function prepare(db: BenchDb): Promise<string> {
  const row = shellRow();
  const now = Date.now();
  await db.run(`insert into users (id, email, role, password_hash, created_at) values ('u-viewer', 'viewer@example.com', 'viewer', 'x', '2026-01-01T00:00:00Z')`, []);
  await db.run(`insert into auth_sessions (id, token_hash, user_id, created_at_ms, expires_at_ms) values ('bench-session', ?, 'u-viewer', ?, ?)`, [hashSessionToken(VIEWER_TOKEN), now, now + 86_400_000]);
  const T = "2025-01-01T00:00:00Z";
  await db.run(`insert into tasks (id, title, state, created_at, updated_at, queued_for_step) values ('t1', 't', 'COMPLETED', ?, ?, ?)`, [T, T, POSTGRES ? false : 0]);
  await db.run(`insert into task_sessions (id, task_id, state, started_at, updated_at, completed_at) values ('s1', 't1', 'COMPLETED', ?, ?, ?)`, [T, T, T]);
  await db.run(`insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) values ('big', 's1', 'agent', 'tool_execute', '', ?, ?, ?)`, [row, T, T]);
  // The export's task: 500,000 short messages in one session.
  await db.run(`insert into tasks (id, title, state, created_at, updated_at, queued_for_step) values ('t2', 't', 'COMPLETED', ?, ?, ?)`, [T, T, POSTGRES ? false : 0]);
  await db.run(`insert into task_sessions (id, task_id, state, started_at, updated_at, completed_at) values ('s2', 't2', 'COMPLETED', ?, ?, ?)`, [T, T, T]);
  const series = POSTGRES
    ? `select i from generate_series(1, ${EXPORT_MESSAGES}) as g(i)`
    : `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${EXPORT_MESSAGES}) select i from n`;
  await db.run(
    `insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) select 'm' || i, 's2', 'agent', 'message', ? || i, '{}', ?, ? from (${series}) as s`,
    [FILLER, T, T],
  );
  return row;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-flood-"));
  const db = await openBenchDb({ dir, postgres: POSTGRES });
  const rowText = await prepare(db);
  const auditRows = () => db.count(`select count(*) as n from audit_events`);
  const server = await startAppServer({ port: PORT, env: { DATABASE_URL: db.url, DATA_DIR: dir } });
  try {
    const results: Record<string, unknown> = {};
    const viewer = { cookie: `wsr_session=${VIEWER_TOKEN}` };
    // Warm-up, not counted: the first requests load route modules and warm the JIT.
    await probeWhile();
    results.idle = { ...(await probeWhile()), serverRssMiB: treeRssBytes(server.process.pid!) / 2 ** 20 };

    // 5,000 refused sign-ins from one address, 20 at a time, probed until the last one is answered.
    const before = await auditRows();
    const refused = await probeDuring({
      url: `${BASE}/api/v1/auth/login`,
      parallel: 20,
      count: 5000,
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE },
      body: JSON.stringify({ email: "viewer@example.com", password: "wrong-#" }),
    });
    // The counted refusals reach their rows within the flush interval (5 s).
    await new Promise((resolve) => setTimeout(resolve, 6000));
    results.refusedSignIns = { ...refused, auditRowsAdded: (await auditRows()) - before };

    // The floor under any API flood: 5,000 anonymous GET /auth/me, 20 at a time (the cheapest route there is, 401 before any read).
    results.anonymousRoute = await probeDuring({ url: `${BASE}/api/v1/auth/me`, parallel: 20, count: 5000 });

    // The same flood of page paths, short ones first: what any 20 parallel clients cost, against what the dots add.
    const dotted = `/a${".".repeat(15_000)}/b`;
    results.shortPaths = await probeDuring({ url: `${BASE}/a/b`, parallel: 20, seconds: SECONDS });
    results.longPaths = await probeDuring({ url: `${BASE}/a${"x".repeat(15_000)}/b`, parallel: 20, seconds: SECONDS });
    results.dottedPaths = await probeDuring({ url: `${BASE}${dotted}`, parallel: 20, seconds: SECONDS });

    const rssAtStart = treeRssBytes(server.process.pid!);
    let rssPeak = rssAtStart;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, treeRssBytes(server.process.pid!))), 100);
    const shell = await probeDuring({ url: `${BASE}/api/v1/messages/big/shell-output`, parallel: 3, seconds: SECONDS, headers: viewer });
    results.shellOutput = { ...shell, completeReads: Math.floor(shell.attack.bytes / ROW_BYTES), serverRssPeakMiB: rssPeak / 2 ** 20 };
    results.conversation = await probeDuring({ url: `${BASE}/api/v1/tasks/t1`, parallel: 3, seconds: SECONDS, headers: viewer });
    const rssBeforeExport = treeRssBytes(server.process.pid!);
    rssPeak = rssBeforeExport;
    // A viewer exports the 500,000-message task, while the server's memory is sampled.
    const exported = await probeDuring({ url: `${BASE}/api/v1/tasks/t2/export`, parallel: 1, count: 1, headers: viewer });
    clearInterval(sampler);
    if (exported.attack.statuses["200"] !== 1) throw new Error(`export answered ${JSON.stringify(exported.attack.statuses)}`);
    results.taskExport = {
      ...exported,
      messages: EXPORT_MESSAGES,
      serverRssAtStartMiB: rssAtStart / 2 ** 20,
      serverRssBeforeMiB: rssBeforeExport / 2 ** 20,
      serverRssPeakMiB: rssPeak / 2 ** 20,
    };
    const row = rowText;

    // The previous code's per-request work, on this thread.
    let t0 = performance.now();
    /\.[^/]*$/.test(dotted);
    const oldRegexMs = performance.now() - t0;
    t0 = performance.now();
    parse(row);
    const losslessMs = performance.now() - t0;
    // The one-piece export (what the route did): one synchronous string on the main thread; and the conversation's summaries there.
    let onePiece: { ms: number; chars: number; heapGrowthMiB: number } | null = null;
    let conversationInlineMs: number | null = null;
    if (!POSTGRES) {
      const file = path.join(dir, "workspace.db");
      const sqlite = new Database(file, { readonly: true });
      try {
        // The statements the route ran on the server's thread, synchronously.
        t0 = performance.now();
        listConversationRows(sqlite as never, "t1", 1001);
        conversationInlineMs = performance.now() - t0;
        const heapBefore = process.memoryUsage().heapUsed;
        t0 = performance.now();
        const text = await exportTask(createSqliteWorkspaceStore(wrapSqliteDb({ sqlite: sqlite as never, file }, { reader: false })), "t2");
        onePiece = { ms: performance.now() - t0, chars: text.length, heapGrowthMiB: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 };
      } finally {
        sqlite.close();
      }
    }
    results.naive = { oldExtensionRegexMsPerPath: oldRegexMs, losslessJsonParseMsPer32MiBRow: losslessMs, auditRowsPerRefusal: 1, conversationOnServerThreadMs: conversationInlineMs, onePieceExport: onePiece };

    const idle = results.idle as { p95: number };
    const worst = Math.max(...["refusedSignIns", "dottedPaths", "shellOutput", "conversation", "taskExport"].map((k) => (results[k] as { p95: number }).p95));
    console.log(JSON.stringify({ benchmark: "anonymous-flood", engine: POSTGRES ? "postgres" : "sqlite", rate: RATE, seconds: SECONDS, host: { cpus: os.cpus().length, load: os.loadavg() }, results }, null, 2));
    const r = results as Record<string, { p95: number; auditRowsAdded?: number; idleBefore?: { p95: number } }>;
    // Each load's p95, with the idle p95 measured right before it in brackets.
    const at = (k: string) => `${r[k]!.p95.toFixed(1)} ms [idle ${r[k]!.idleBefore!.p95.toFixed(1)}]`;
    console.log(
      `anonymous-flood (${POSTGRES ? "postgres" : "sqlite"}, load ${os.loadavg()[0]!.toFixed(1)}): /auth/me p95 idle ${idle.p95.toFixed(1)} ms; 5,000 refused sign-ins ${at("refusedSignIns")} (+${r.refusedSignIns!.auditRowsAdded} audit rows, was 5,000), 5,000 anonymous /auth/me ${at("anonymousRoute")}; 20x short paths ${at("shortPaths")}, 20x15,000-x paths ${at("longPaths")}, 20x15,000-dot paths ${at("dottedPaths")} (old regex ${oldRegexMs.toFixed(0)} ms a path); 3x32 MiB shell output ${at("shellOutput")} (old parse ${losslessMs.toFixed(0)} ms a read); 3x its conversation ${at("conversation")}${conversationInlineMs === null ? "" : ` (on the server's thread ${conversationInlineMs.toFixed(0)} ms a read)`}; 500k-message export ${at("taskExport")}, server RSS peak ${(results.taskExport as { serverRssPeakMiB: number }).serverRssPeakMiB.toFixed(0)} MiB${onePiece ? ` (one-piece export ${onePiece.ms.toFixed(0)} ms on one thread)` : ""}; worst ${worst.toFixed(1)} ms (target < 50)`,
    );
  } finally {
    await server.stop();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
