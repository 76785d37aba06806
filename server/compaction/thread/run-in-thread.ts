// The main thread's side of a cleanup slice on a worker thread: starts the
// thread on the bundled entry, answers its per-batch admission requests from
// the shared maintenance guard (the lease is held here until the thread says
// its batch ended), mirrors cancel and shutdown into the shared flags, and
// hands committed batches and log lines to the caller's listeners.
import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Clock } from "@/server/clock";
import type { Logger } from "@/server/log";
import type { BatchLease, CleanupPassOptions, CleanupPassResult } from "../cleanup/pass-options";
import { FLAG, FLAG_COUNT, type FromThread, type PassDatabase, type SliceRequest, type ThreadData, type ToThread } from "./protocol";
import type { PassThreadSettings } from "./thread-config";

/**
 * The pass allocates many short-lived rows, and V8's default young
 * generation grows to keep them all resident for the whole slice. Capped,
 * status-during-pass on 1M messages measured the server's peak RSS at 230
 * instead of 243 MiB, with the same rows compacted per slice.
 */
const PASS_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 } as const;

/**
 * How often the flags are refreshed from shouldStop/shouldPause between the
 * thread's messages (a slice of ineligible tasks sends none). Real timers:
 * the thread itself runs on real time whatever clock the caller holds.
 */
const FLAG_REFRESH_MS = 50;

export type ThreadPassOptions = Pick<CleanupPassOptions, "operationId" | "shouldStop" | "shouldPause" | "onBatch" | "log"> & {
  thread: PassThreadSettings;
  /** What the slice opens on its thread: the same workspace file, or a pool of its own on the same server. */
  database: PassDatabase;
  clock: Clock;
  /** Admission for one batch, answered on this thread (synchronous: the guard lives here). */
  admitBatch?: () => BatchLease | null | Promise<BatchLease | null>;
  limits?: Omit<SliceRequest, "operationId" | "nowMs">;
  /** Where the slice threads are counted: the runtime's (PassThreadState), or the caller's own. */
  slices: ThreadSliceCount;
};

/** Slice threads started, and those not yet exited (observable for tests and the benchmark; a settled slice has none left). */
export type ThreadSliceCount = { started: number; running: number };

/** The thread failed before it opened the database: the caller may run the slice inline instead. */
export class PassThreadUnavailableError extends Error {
  constructor(readonly code: string) {
    super(`cleanup thread unavailable (${code})`);
    this.name = "PassThreadUnavailableError";
  }
}

/**
 * PostgreSQL: the slice's own pool could not open a session before it read
 * anything (no connection slot left, a refused login). The caller may run
 * this slice inline on its own pool; the thread itself works.
 */
export class PassThreadNoSessionError extends Error {
  constructor(readonly code: string | null) {
    super(`cleanup thread could not open its sessions (${code ?? "unknown"})`);
    this.name = "PassThreadNoSessionError";
  }
}

/** A pass that failed inside the thread; carries the error's name and code only. */
export class PassThreadError extends Error {
  constructor(
    name: string,
    readonly code: string | null,
  ) {
    super(`cleanup slice failed on its thread (${code ?? name})`);
    this.name = name;
  }
}

export function runPassInThread(options: ThreadPassOptions): Promise<CleanupPassResult> {
  const flags = new Int32Array(new SharedArrayBuffer(FLAG_COUNT * Int32Array.BYTES_PER_ELEMENT));
  const refreshFlags = () => {
    const stop = options.shouldStop?.() === true;
    if (stop) Atomics.store(flags, FLAG.stop, 1);
    if (options.shouldPause?.() === true) Atomics.store(flags, FLAG.pause, 1);
    return stop;
  };
  refreshFlags();
  const data: ThreadData = {
    root: options.thread.root ?? process.cwd(),
    database: options.database,
    request: { ...options.limits, operationId: options.operationId, nowMs: options.clock.now() },
    flags: flags.buffer as SharedArrayBuffer,
  };
  let worker: Worker;
  try {
    worker = new Worker(path.resolve(options.thread.bundlePath), { workerData: data, resourceLimits: PASS_THREAD_LIMITS });
    const { slices } = options;
    slices.started += 1;
    slices.running += 1;
    worker.once("exit", () => void (slices.running -= 1));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return Promise.reject(new PassThreadUnavailableError(typeof code === "string" ? code : "worker_start"));
  }
  const leases = new Map<number, BatchLease>();
  let ready = false;
  let settled = false;
  let refreshHandle: NodeJS.Timeout | null = null;

  return new Promise<CleanupPassResult>((resolve, reject) => {
    const finish = (outcome: { result: CleanupPassResult } | { error: Error }) => {
      if (settled) return;
      settled = true;
      if (refreshHandle !== null) clearTimeout(refreshHandle);
      // A thread that ended mid-batch must not keep the guard.
      for (const lease of leases.values()) lease.release();
      leases.clear();
      // Settled only once the thread is gone, its connections closed: after
      // a crash or a listener failure it may still be inside a statement,
      // and a caller that waits for the slice (the maintenance quiescer)
      // must not find the database in use.
      const settle = () => ("result" in outcome ? resolve(outcome.result) : reject(outcome.error));
      worker.terminate().then(settle, settle);
    };
    const scheduleRefresh = () => {
      refreshHandle = setTimeout(() => {
        if (settled) return;
        refreshFlags();
        scheduleRefresh();
      }, FLAG_REFRESH_MS);
      refreshHandle.unref();
    };
    scheduleRefresh();
    const answer = (message: ToThread) => worker.postMessage(message);
    const relayLog = (log: Logger | undefined, message: Extract<FromThread, { type: "log" }>) => log?.[message.level](message.fields, message.msg);

    worker.on("message", (message: FromThread) => {
      try {
        switch (message.type) {
          case "ready":
            ready = true;
            return;
          case "no_session":
            return finish({ error: new PassThreadNoSessionError(message.code) });
          case "admit": {
            // A cancel that arrived since the last refresh is seen before the batch opens.
            const asked = refreshFlags() ? null : options.admitBatch ? options.admitBatch() : { release() {} };
            const grant = (lease: BatchLease | null) => {
              // The slice ended while the guard was asked: its lease is not kept.
              if (settled) return lease?.release();
              if (lease) leases.set(message.seq, lease);
              answer({ type: "admitted", seq: message.seq, granted: lease !== null });
            };
            if (asked instanceof Promise) {
              asked.then(grant, (error: unknown) => finish({ error: error instanceof Error ? error : new Error("cleanup admission failed") }));
              return;
            }
            return grant(asked);
          }
          case "release":
            leases.get(message.seq)?.release();
            leases.delete(message.seq);
            return;
          case "batch":
            // A listener that fails on this side stops the thread with it.
            Promise.resolve(options.onBatch?.(message.event)).catch((error: unknown) =>
              finish({ error: error instanceof Error ? error : new Error("cleanup listener failed") }),
            );
            refreshFlags();
            return;
          case "log":
            return relayLog(options.log, message);
          case "done":
            return finish({ result: message.result });
          case "failed":
            return finish({ error: new PassThreadError(message.name, message.code) });
        }
      } catch (error) {
        // A listener failed on this side: the thread stops with it.
        finish({ error: error instanceof Error ? error : new Error("cleanup listener failed") });
      }
    });
    worker.once("error", (error) => {
      const code = (error as { code?: unknown }).code;
      finish({ error: ready ? error : new PassThreadUnavailableError(typeof code === "string" ? code : error.name) });
    });
    worker.once("exit", (exitCode) => {
      finish({ error: ready ? new PassThreadError("PassThreadExit", `exit_${exitCode}`) : new PassThreadUnavailableError(`exit_${exitCode}`) });
    });
  });
}
