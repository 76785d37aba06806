// Does a cleanup pass stall HTTP? Serves the real status route (GET
// /api/v1/system/database/tool-payload-retention, through the route wrapper,
// session check and record read) from the same process that runs the real
// compaction worker, and measures GET latency from a load generator on its own
// thread: first on the idle database (baseline), then while the worker's
// first 30-second cleanup slice runs. Latency counts from each request's
// scheduled time, so a stalled event loop is charged in full. Idle is
// measured before the pass and again after its first slice has paused
// (the 30-second slice, then a continuation wait of at least a minute).
// The pass runs the way production runs it: on the cleanup worker thread when
// dist/compaction-pass-thread.cjs exists (`npm run build:pass-thread`) and
// COMPACTION_THREAD is not `off`, else inline; the report says which.
// `--base FILE` generates the workspace into FILE once and runs on a fresh
// copy of it each time (a 1M-message workspace takes minutes to generate).
//   npx tsx --conditions=react-server scripts/bench/status-during-pass.ts [--messages 200000] [--rate 20] [--seconds 20] [--base FILE]
// `--engine postgres` measures P4-PG instead (status-during-pass-pg.ts).
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { generateWorkspace } from "../gen-large-workspace";
import { createSession } from "@/server/auth/sessions";
import { createUser } from "@/server/auth/users";
import { createRuntime, installProcessRuntime, openRuntime } from "@/server/runtime";
import { GET } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { putCompactionPolicy } from "@/server/compaction/service";
import { readCompactionRecord } from "@/server/compaction/policy/record";
import { runPostgres } from "./status-during-pass-pg";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const LOAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const interval = 1000 / workerData.rate;
const latencies = [];
let errors = 0;
const start = performance.now();
const total = Math.round(workerData.seconds * workerData.rate);
let done = 0;
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
  return Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(1));
}

function summarize(latencies: number[], errors: number) {
  return { requests: latencies.length, errors, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95), p99Ms: percentile(latencies, 99), maxMs: percentile(latencies, 100) };
}

function runLoad(url: string, cookie: string, rate: number, seconds: number): Promise<{ latencies: number[]; errors: number }> {
  const worker = new Worker(LOAD_SOURCE, { eval: true, workerData: { url, cookie, rate, seconds } });
  return new Promise((resolve, reject) => {
    worker.once("message", (m: { latencies: number[]; errors: number }) => {
      void worker.terminate();
      resolve(m);
    });
    worker.once("error", reject);
  });
}

async function main() {
  if (arg("engine", "sqlite") === "postgres") return runPostgres();
  const messages = Number(arg("messages", "200000"));
  const rate = Number(arg("rate", "20"));
  const seconds = Number(arg("seconds", "20"));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-status-"));
  const file = path.join(dir, "workspace.db");
  const base = arg("base", "");
  let generated: { messages: number };
  if (base) {
    if (!fs.existsSync(base)) {
      process.stderr.write(`generating ${messages} messages into ${base}...\n`);
      generateWorkspace({ file: base, messages, hugeRows: 1 });
    }
    process.stderr.write("copying the base workspace...\n");
    fs.copyFileSync(base, file);
    const copy = new Database(file, { readonly: true });
    generated = { messages: (copy.prepare("select count(*) as n from messages").get() as { n: number }).n };
    copy.close();
  } else {
    process.stderr.write(`generating ${messages} messages...\n`);
    generated = generateWorkspace({ file, messages, hugeRows: 1 });
  }
  // The route wrapper serves with the process runtime: install this one.
  const env = { DATABASE_URL: `file:${file}`, LOG_LEVEL: "warn", COMPACTION_THREAD: process.env.COMPACTION_THREAD };
  const rt = openRuntime(createRuntime({ env }));
  if (!rt?.handle) throw new Error("the bench needs a SQLite runtime");
  installProcessRuntime(rt);
  const store = rt.stores.compaction;
  // A session of now, through the auth store: a hand-made one of 1970 is idle-expired and every GET would be a 401.
  const nowMs = Date.now();
  const { id: userId } = await createUser(rt.stores.auth, { email: "bench@example.com", role: "admin", password: "bench-password-long", nowMs });
  const session = await createSession(rt.stores.auth, { userId, nowMs });
  const server = http.createServer(async (req, res) => {
    const response = await GET(new Request(`http://localhost${req.url}`, { headers: { cookie: req.headers.cookie ?? "" } }));
    res.writeHead(response.status, { "content-type": "application/json" });
    res.end(await response.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/system/database/tool-payload-retention`;
  const cookie = `wsr_session=${session.token}`;
  void rt.start();

  process.stderr.write("idle load...\n");
  const idle = await runLoad(url, cookie, rate, seconds);

  process.stderr.write("load during the cleanup pass...\n");
  // The process's resident size sampled every 10 ms while the slice runs (the
  // thread's transient buffers included): the peak of the server with its pass.
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 10);
  const passStarted = Date.now();
  await putCompactionPolicy(rt, { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "skip" });
  const during = await runLoad(url, cookie, rate, seconds);
  const read = await readCompactionRecord(store);
  const active = read.state === "malformed" ? null : (read.record.runtime.activeOperation ?? read.record.runtime.latestRun);
  // The slice ends after its 30 s work budget (yields not counted); then the
  // worker waits at least a minute for its continuation, long enough for the
  // idle-after window. Wait for that pause itself, not a fixed time, so the
  // slice's last batches are not charged to "idle".
  const sliceEnded = async () => {
    if ((await rt.compaction.betweenSlices?.()) != null) return true;
    const now = await readCompactionRecord(store);
    return now.state !== "malformed" && now.record.runtime.activeOperation === null;
  };
  while (!(await sliceEnded()) && Date.now() - passStarted < 120_000) await new Promise((r) => setTimeout(r, 200));
  const sliceWallMs = Date.now() - passStarted;
  clearInterval(sampler);
  process.stderr.write("idle load after the slice...\n");
  const idleAfter = await runLoad(url, cookie, rate, Math.min(seconds, 50));
  server.close();
  await rt.stop();
  fs.rmSync(dir, { recursive: true, force: true });

  const report = {
    bench: "status-during-pass",
    // Where the slice ran: proven by the thread having started, not by the setting.
    passRanOn: rt.passThreads.started > 0 ? "thread" : "inline",
    compactionThread: env.COMPACTION_THREAD ?? "auto",
    messages: generated.messages,
    rate,
    seconds,
    idle: summarize(idle.latencies, idle.errors),
    duringPass: summarize(during.latencies, during.errors),
    idleAfter: summarize(idleAfter.latencies, idleAfter.errors),
    sliceWallMs,
    passProgress: active ? { state: active.state, changedMessages: active.changedMessages, payloadBytes: active.payloadBytes } : null,
    rssBeforePassMiB: Math.round(rssBefore / 1048576),
    peakRssMiB: Math.round(rssPeak / 1048576),
  };
  console.log(JSON.stringify(report));
  console.log(
    `[pass ${report.passRanOn}] status GET p95: idle ${report.idle.p95Ms} ms before / ${report.idleAfter.p95Ms} ms after, during pass ${report.duringPass.p95Ms} ms ` +
      `(${(report.duringPass.p95Ms / Math.max(0.1, Math.max(report.idle.p95Ms, report.idleAfter.p95Ms))).toFixed(1)}x the larger idle); ` +
      `p99 ${report.idle.p99Ms} -> ${report.duringPass.p99Ms} ms; pass changed ${report.passProgress?.changedMessages ?? 0} messages in the window; ` +
      `non-200 answers ${report.idle.errors + report.duringPass.errors + report.idleAfter.errors}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
