// Does one PostgreSQL round trip hold up every other request? Serves the
// real compaction status route (GET /api/v1/system/database/
// tool-payload-retention: route wrapper, session check, record read) from a
// runtime whose DATABASE_URL goes through a TCP proxy that adds a delay each
// way (default 2 ms, as a database in another zone), then measures:
// 1. throughput of 1 closed-loop client against 16 (a data layer that serves
//    one query at a time gets about 1x; a pool gets up to its size);
// 2. status GET latency at a fixed rate on the idle instance (baseline), then
//    while the same instance's pool runs one 2-second statement after
//    another (as a slow request's), counted from each request's scheduled
//    time so a stalled event loop or a queue behind the statement is charged
//    in full.
// The load runs on its own worker thread. A fresh database is created in the
// cluster of --url and dropped at the end.
//   npx tsx --conditions=react-server scripts/bench/pg-head-of-line.ts --url postgresql://postgres@/postgres?host=/tmp/pg [--delay-ms 2] [--seconds 10] [--pool 16]
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { Worker } from "node:worker_threads";
import pg from "pg";
import { GET } from "@/app/api/v1/system/database/tool-payload-retention/route";
import { createSession } from "@/server/auth/sessions";
import { createUser } from "@/server/auth/users";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, installProcessRuntime, openRuntime } from "@/server/runtime";
import { percentile, runOnLoadThread } from "./lib/load-thread";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** A postgres URL as WHATWG URL parses it (an empty host, as in `postgres@/db?host=/dir`, is not a URL to it). */
function parseUrl(text: string): URL {
  return new URL(text.replace(/^(postgres(?:ql)?:\/\/[^/@]*@)\//, "$1localhost/"));
}

/** Where the cluster of a postgres URL listens: a Unix socket (host=/dir) or host:port. */
function target(url: URL): net.NetConnectOpts {
  const host = url.searchParams.get("host") ?? url.hostname;
  const port = Number(url.port || url.searchParams.get("port") || 5432);
  return host.startsWith("/") ? { path: path.join(host, `.s.PGSQL.${port}`) } : { host: host || "127.0.0.1", port };
}

// A TCP proxy that forwards each chunk after `delayMs`, in order, each way
// (one timer chain per direction, as on a link with that much latency). It
// runs on a thread of its own, so the app's work on its event loop never
// delays a forwarded chunk: the added latency stays the link's.
const PROXY_SOURCE = `
const net = require("node:net");
const { parentPort, workerData } = require("node:worker_threads");
const { upstream, delayMs } = workerData;
const relay = (from, to) => {
  let tail = Promise.resolve();
  from.on("data", (chunk) => {
    const due = Date.now() + delayMs;
    tail = tail.then(() => new Promise((resolve) => setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
      resolve();
    }, Math.max(0, due - Date.now()))));
  });
  from.on("close", () => void tail.then(() => to.end()));
  from.on("error", () => to.destroy());
};
const server = net.createServer((client) => {
  const db = net.connect(upstream);
  relay(client, db);
  relay(db, client);
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
`;

function startDelayProxy(upstream: net.NetConnectOpts, delayMs: number): Promise<{ port: number; close(): void }> {
  const worker = new Worker(PROXY_SOURCE, { eval: true, workerData: { upstream, delayMs } });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ port, close: () => void worker.terminate() }));
    worker.once("error", reject);
  });
}

// Closed loop (`concurrency` clients, each sends its next GET when the last
// answered) or open loop (`rate` GETs a second on a schedule).
const LOAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const { url, cookie, seconds, concurrency, rate } = workerData;
const latencies = [];
let errors = 0;
const get = async () => {
  const res = await fetch(url, { headers: { cookie } });
  await res.text();
  if (res.status !== 200) errors++;
};
(async () => {
  const start = performance.now();
  if (rate) {
    const total = Math.round(seconds * rate);
    await Promise.all(Array.from({ length: total }, (_, i) => new Promise((resolve) => {
      const scheduled = start + (i * 1000) / rate;
      setTimeout(async () => {
        try { await get(); } catch { errors++; }
        latencies.push(performance.now() - scheduled);
        resolve();
      }, Math.max(0, scheduled - performance.now()));
    })));
  } else {
    const end = start + seconds * 1000;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try { await get(); } catch { errors++; }
        latencies.push(performance.now() - t0);
      }
    }));
  }
  parentPort.postMessage({ latencies, errors, wallMs: performance.now() - start });
})();
`;

type Load = { latencies: number[]; errors: number; wallMs: number };

function runLoad(workerData: { url: string; cookie: string; seconds: number; concurrency?: number; rate?: number }): Promise<Load> {
  return runOnLoadThread<Load>(LOAD_SOURCE, workerData);
}

function summarize(load: Load) {
  return {
    requests: load.latencies.length,
    errors: load.errors,
    perSecond: Number(((load.latencies.length * 1000) / load.wallMs).toFixed(1)),
    p50Ms: percentile(load.latencies, 50),
    p95Ms: percentile(load.latencies, 95),
    maxMs: percentile(load.latencies, 100),
  };
}

async function main(): Promise<void> {
  const base = arg("url", process.env.TEST_POSTGRES_URL ?? "");
  if (!base) throw new Error("give --url (a PostgreSQL cluster the bench may create a database in) or TEST_POSTGRES_URL");
  const delayMs = Number(arg("delay-ms", "2"));
  const seconds = Number(arg("seconds", "10"));
  const pool = arg("pool", "16");
  const rate = Number(arg("rate", "20"));
  const database = `bench_hol_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${database}`);
  process.stderr.write(`created ${database}; migrating through the proxy...\n`);

  const proxy = await startDelayProxy(target(parseUrl(base)), delayMs);
  const user = parseUrl(base).username || "postgres";
  const env = { DATABASE_URL: `postgresql://${user}@127.0.0.1:${proxy.port}/${database}`, PG_POOL_MAX: pool, LOG_LEVEL: "warn" };
  const rt = openRuntime(await createMigratedRuntime({ env, log: createLogger({ level: "warn", destination: process.stderr }) }));
  if (!rt?.postgres) throw new Error("the bench needs a PostgreSQL runtime");
  installProcessRuntime(rt);
  process.stderr.write("runtime open\n");
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

  process.stderr.write("warm-up...\n");
  await runLoad({ url, cookie, seconds: 2, concurrency: 4 });
  process.stderr.write("1 client...\n");
  const one = summarize(await runLoad({ url, cookie, seconds, concurrency: 1 }));
  process.stderr.write("16 clients...\n");
  const sixteen = summarize(await runLoad({ url, cookie, seconds, concurrency: 16 }));
  process.stderr.write(`idle at ${rate}/s...\n`);
  const idle = summarize(await runLoad({ url, cookie, seconds, rate }));
  process.stderr.write(`at ${rate}/s while 2 s statements run on the pool...\n`);
  let holding = true;
  let held = 0;
  const holder = (async () => {
    while (holding) {
      await rt.postgres!.query("select pg_sleep(2)");
      held++;
    }
  })();
  const duringHold = summarize(await runLoad({ url, cookie, seconds, rate }));
  holding = false;
  await holder;

  server.close();
  await rt.stop();
  proxy.close();
  await admin.query(`drop database ${database} with (force)`);
  await admin.end();

  const ratio = Number((sixteen.perSecond / Math.max(0.1, one.perSecond)).toFixed(2));
  const report = { bench: "pg-head-of-line", delayMsEachWay: delayMs, poolMax: Number(pool), seconds, oneClient: one, sixteenClients: sixteen, throughputRatio: ratio, idle, duringTwoSecondStatements: { ...duringHold, statements: held } };
  console.log(JSON.stringify(report));
  console.log(
    `status GET with ${delayMs} ms each way: 16 clients ${sixteen.perSecond}/s vs 1 client ${one.perSecond}/s = ${ratio}x (target >= 6x); ` +
      `p95 at ${rate}/s idle ${idle.p95Ms} ms, while 2 s statements run ${duringHold.p95Ms} ms (target <= 50 ms); pool ${pool}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
