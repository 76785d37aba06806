// P4-PG: does a cleanup pass on PostgreSQL slow the status route of the
// instance running it? `status-during-pass.ts --engine postgres` lands here.
// A fresh database of the TEST_POSTGRES_URL (or --url) cluster holds the
// generated shell rows (lib/pg-shell-workspace.ts); one runtime on it serves the real status
// route (route wrapper, session check, record read) and, holding the worker
// lease, runs the real worker's pass: its slices on their pass thread with a
// pool of their own when `npm run build:pass-thread` wrote a current bundle
// (`COMPACTION_THREAD=off` in the environment runs them inline, in the serving
// thread, for comparison; the report's passRanOn says which). The load runs on its own worker
// thread, closed loop: 100 sequential GETs, then 8 concurrent clients of 100
// GETs each, five rounds (p95 over the rounds' answers); first on the idle instance, then while the pass runs (from its
// first committed batch; the report says whether it was still running when
// each load ended), then idle again after it.
//   npx tsx --conditions=react-server scripts/bench/status-during-pass.ts --engine postgres [--url URL] [--messages 60000] [--requests 100] [--clients 8] [--rounds 5]
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { GET } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { createSession } from "@/server/auth/sessions";
import { createUser } from "@/server/auth/users";
import { putCompactionPolicy } from "@/server/compaction/service";
import { readCompactionRecord } from "@/server/compaction/policy/record";
import { createEmptyPgDatabase } from "@/server/db/pg/test-db";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, installProcessRuntime, openRuntime } from "@/server/runtime";
import { seedShellWorkspace } from "./lib/pg-shell-workspace";
import { percentile, runOnLoadThread } from "./lib/load-thread";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

// `clients` closed-loop clients, each sending its next GET when the last answered, `requests` each.
const LOAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const { url, cookie, clients, requests } = workerData;
const latencies = [];
let errors = 0;
(async () => {
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, { headers: { cookie } });
        await res.text();
        if (res.status !== 200) errors++;
      } catch { errors++; }
      latencies.push(performance.now() - t0);
    }
  }));
  parentPort.postMessage({ latencies, errors, wallMs: performance.now() - start });
})();
`;

type Load = { latencies: number[]; errors: number; wallMs: number };

function runLoad(workerData: { url: string; cookie: string; clients: number; requests: number }): Promise<Load> {
  return runOnLoadThread<Load>(LOAD_SOURCE, workerData);
}

const summarize = (rounds: Load[]) => {
  const latencies = rounds.flatMap((load) => load.latencies);
  const wallMs = rounds.reduce((sum, load) => sum + load.wallMs, 0);
  return {
    requests: latencies.length,
    errors: rounds.reduce((sum, load) => sum + load.errors, 0),
    perSecond: Number(((latencies.length * 1000) / wallMs).toFixed(1)),
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    maxMs: percentile(latencies, 100),
    roundP95Ms: rounds.map((load) => percentile(load.latencies, 95)),
  };
};

export async function runPostgres(): Promise<void> {
  const serverUrl = arg("url", process.env.TEST_POSTGRES_URL ?? "");
  if (!serverUrl) throw new Error("give --url (a PostgreSQL cluster the bench may create a database in) or TEST_POSTGRES_URL");
  const messages = Number(arg("messages", "60000"));
  const requests = Number(arg("requests", "100"));
  const clients = Number(arg("clients", "8"));
  const rounds = Number(arg("rounds", "5"));
  const database = await createEmptyPgDatabase(serverUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-status-pg-"));
  try {
    process.stderr.write(`seeding ${messages} messages into ${database.name}...\n`);
    await seedShellWorkspace(database.url, messages, 16 * 1024, { approveAtMs: null });
    // PG_POOL_MAX from the environment when given (the default is the runtime's: 4).
    const passed = (name: string) => (process.env[name] ? { [name]: process.env[name] } : {});
    const env = { DATABASE_URL: database.url, DATA_DIR: dir, LOG_LEVEL: "warn", ...passed("PG_POOL_MAX"), ...passed("COMPACTION_THREAD") };
    const rt = openRuntime(await createMigratedRuntime({ env, log: createLogger({ level: "warn", destination: process.stderr }) }));
    if (!rt?.postgres) throw new Error("the bench needs a PostgreSQL runtime");
    installProcessRuntime(rt);
    const { poolMax } = rt.postgres.config;
    const nowMs = Date.now();
    const { id } = await createUser(rt.stores.auth, { email: "bench@example.com", role: "admin", password: "bench-password-long", nowMs });
    const session = await createSession(rt.stores.auth, { userId: id, nowMs });
    const server = http.createServer(async (req, res) => {
      const response = await GET(new Request(`http://localhost${req.url}`, { headers: { cookie: req.headers.cookie ?? "" } }));
      res.writeHead(response.status, { "content-type": "application/json" });
      res.end(await response.text());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/api/v1/system/database/tool-payload-retention`;
    const cookie = `wsr_session=${session.token}`;
    rt.start();
    while (!rt.compaction.isRunning()) await new Promise((resolve) => setTimeout(resolve, 20));

    const store = rt.stores.compaction;
    const passRunning = async () => {
      const read = await readCompactionRecord(store);
      return read.state !== "malformed" && read.record.runtime.activeOperation?.kind === "cleanup";
    };
    // `rounds` times: 100 sequential GETs, then the clients' load. The p95 is over every round's answers
    // (one round of 100 is decided by its 5 slowest); each round's own p95 is listed too.
    const loads = async (phase: string, during: boolean) => {
      process.stderr.write(`${phase}: ${rounds} rounds of ${requests} sequential GETs, then ${clients} clients x ${requests}...\n`);
      const sequential: Load[] = [];
      const concurrent: Load[] = [];
      const running: boolean[] = [];
      for (let round = 0; round < rounds; round++) {
        sequential.push(await runLoad({ url, cookie, clients: 1, requests }));
        concurrent.push(await runLoad({ url, cookie, clients, requests }));
        if (during) running.push(await passRunning());
      }
      return { sequential: summarize(sequential), concurrent: summarize(concurrent), ...(during ? { passRunningAtEndOfRound: running } : {}) };
    };

    await runLoad({ url, cookie, clients: 4, requests: 50 });
    const idle = await loads("idle", false);
    let batches = 0;
    const firstBatch = new Promise<void>((resolve) =>
      rt.bus.subscribe((event) => {
        if (event.type === "messages_changed" && ++batches === 1) resolve();
      }),
    );
    const passStarted = Date.now();
    await putCompactionPolicy(rt, { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "skip" });
    await firstBatch;
    const duringPass = await loads("during the pass", true);
    while (await passRunning()) await new Promise((resolve) => setTimeout(resolve, 200));
    const passWallMs = Date.now() - passStarted;
    const read = await readCompactionRecord(store);
    const run = read.state === "malformed" ? null : read.record.runtime.latestRun;
    const idleAfter = await loads("idle after the pass", false);
    server.close();
    await rt.stop();

    const ratio = (kind: "sequential" | "concurrent") =>
      Number((duringPass[kind].p95Ms / Math.max(0.1, Math.max(idle[kind].p95Ms, idleAfter[kind].p95Ms))).toFixed(2));
    const report = {
      bench: "status-during-pass",
      engine: "postgres",
      passRanOn: rt.passThreads.started > 0 ? "thread" : "inline",
      messages,
      requests,
      clients,
      rounds,
      poolMax,
      load: os.loadavg().map((n) => Number(n.toFixed(2))),
      idle,
      duringPass,
      idleAfter,
      p95Ratio: { sequential: ratio("sequential"), concurrent: ratio("concurrent") },
      pass: run ? { state: run.state, changedMessages: run.changedMessages, batches, wallMs: passWallMs } : null,
    };
    console.log(JSON.stringify(report));
    console.log(
      `[postgres, pass ${report.passRanOn}] status GET p95 during the pass / the larger idle p95: ` +
        `${rounds} x ${requests} sequential ${duringPass.sequential.p95Ms} / ${Math.max(idle.sequential.p95Ms, idleAfter.sequential.p95Ms)} ms = ${report.p95Ratio.sequential}x, ` +
        `${rounds} x ${clients} clients ${duringPass.concurrent.p95Ms} / ${Math.max(idle.concurrent.p95Ms, idleAfter.concurrent.p95Ms)} ms = ${report.p95Ratio.concurrent}x (target <= 1.5x); ` +
        `pass ${run?.state ?? "?"}, ${run?.changedMessages ?? 0} messages in ${batches} batches`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await database.drop();
  }
}
