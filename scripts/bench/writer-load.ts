// A concurrent foreground writer for benchmarks: a worker thread with its
// own SQLite connection inserting messages at a fixed rate. Latency is
// measured from each insert's SCHEDULED time to its completion, so a writer
// stalled behind a long lock is charged for every insert it could not start
// (no coordinated omission).
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export type WriterReport = { inserts: number; errors: number; latenciesMs: number[] };

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 60000");
const insert = db.prepare(
  "insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms) " +
  "values (?, ?, null, 'user', 'message', 'hello', '{}', null, ?, ?, ?, ?)");
const interval = 1000 / workerData.ratePerSec;
const latencies = [];
let errors = 0;
let stopping = false;
let i = 0;
const start = performance.now();
parentPort.on("message", () => { stopping = true; });
function tick() {
  if (stopping) {
    db.close();
    parentPort.postMessage({ inserts: i, errors, latenciesMs: latencies });
    return;
  }
  const scheduled = start + i * interval;
  const now = new Date().toISOString();
  try {
    insert.run(workerData.prefix + i, workerData.sessionId, now, Date.parse(now), now, Date.parse(now));
  } catch (error) {
    errors += 1;
  }
  latencies.push(performance.now() - scheduled);
  i += 1;
  setTimeout(tick, Math.max(0, start + i * interval - performance.now()));
}
tick();
`;

export function startWriterLoad(options: { file: string; sessionId: string; ratePerSec: number; prefix: string }): { stop(): Promise<WriterReport> } {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...options, driver } });
  const done = new Promise<WriterReport>((resolve, reject) => {
    worker.once("message", (report: WriterReport) => resolve(report));
    worker.once("error", reject);
  });
  return {
    async stop() {
      worker.postMessage("stop");
      const report = await done;
      await worker.terminate();
      return report;
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Number(sorted[Math.max(0, index)]!.toFixed(2));
}
