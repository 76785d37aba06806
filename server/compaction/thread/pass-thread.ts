// The entry of the cleanup slice's worker thread (bundled by
// scripts/build-pass-thread.ts into one CommonJS file). It opens its own
// connection to the workspace file with the server's pragmas (on PostgreSQL,
// a small pool of its own: pg-pass-connection.ts), runs one slice
// of the ordinary cleanup pass (its WAL checkpoints on a thread of their own:
// checkpointer.ts) and reports to the main thread, which keeps
// the queue, the maintenance guard, the record bookkeeping and the event bus:
// every batch asks the main thread for its guard lease, cancel and shutdown
// arrive as shared flags, committed batches and log lines go back as messages.
import "server-only";
import { parentPort, workerData } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import type { Clock } from "@/server/clock";
import { lowerThreadPriority } from "./background-priority";
import { openPassStore } from "./pass-connection";
import { openPgPassStore } from "./pg-pass-connection";
import type { Logger } from "@/server/log";
import { runCleanupPass } from "../cleanup/pass";
import { FLAG, type FromThread, type LogLevel, type PassDatabase, type ThreadData, type ToThread } from "./protocol";

const port = parentPort;
if (!port) throw new Error("pass-thread runs on a worker thread only");
const data = workerData as ThreadData;
const post = (message: FromThread) => port.postMessage(message);
const flags = new Int32Array(data.flags);

function threadClock(nowMs: number, fixed: boolean): Clock {
  if (fixed) return { now: () => nowMs };
  const started = performance.now();
  return { now: () => nowMs + Math.round(performance.now() - started) };
}

// The pass logs ids and counts only; the main thread's logger writes them.
function forwardingLog(): Logger {
  const line = (level: LogLevel) => (fields: unknown, msg?: string) =>
    post({ type: "log", level, fields: typeof fields === "object" && fields ? (fields as Record<string, unknown>) : {}, msg: typeof fields === "string" ? fields : (msg ?? "") });
  const log = { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
  // The pass calls these four levels only.
  return log as unknown as Logger;
}

const answers = new Map<number, (granted: boolean) => void>();
port.on("message", (message: ToThread) => {
  if (message.type !== "admitted") return;
  answers.get(message.seq)?.(message.granted);
  answers.delete(message.seq);
});
let seq = 0;
function admitBatch(): Promise<{ release(): void } | null> {
  const mine = ++seq;
  return new Promise((resolve) => {
    answers.set(mine, (granted) => resolve(granted ? { release: () => post({ type: "release", seq: mine }) } : null));
    post({ type: "admit", seq: mine });
  });
}

/** The slice's store on its own connection(s). */
function openStore(database: PassDatabase, log: Logger) {
  if (database.engine === "postgres") return openPgPassStore(database.config, { log });
  return openPassStore(database.file, { checkpointThread: { root: data.root }, log });
}

async function runSlice(): Promise<void> {
  const { operationId, nowMs, fixedClock, ...limits } = data.request;
  const log = forwardingLog();
  log.debug({ nice: lowerThreadPriority() }, "pass thread priority");
  const pass = openStore(data.database, log);
  if ("connect" in pass) {
    try {
      await pass.connect();
    } catch (error) {
      await pass.close().catch(() => undefined);
      const code = (error as { code?: unknown })?.code;
      post({ type: "no_session", code: typeof code === "string" ? code : null });
      return;
    }
  }
  try {
    post({ type: "ready" });
    const result = await runCleanupPass({
      ...limits,
      store: pass.store,
      clock: threadClock(nowMs, fixedClock === true),
      operationId,
      wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      shouldStop: () => Atomics.load(flags, FLAG.stop) === 1,
      shouldPause: () => Atomics.load(flags, FLAG.pause) === 1,
      admitBatch,
      onBatch: (event) => post({ type: "batch", event }),
      log,
    });
    await pass.close();
    post({ type: "done", result });
  } catch (error) {
    await pass.close().catch(() => undefined);
    const code = (error as { code?: unknown })?.code;
    post({ type: "failed", name: error instanceof Error ? error.name : "Error", code: typeof code === "string" ? code : null });
  }
}

void runSlice();
