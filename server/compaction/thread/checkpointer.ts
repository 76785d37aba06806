// The cleanup pass's WAL checkpoints, on a thread of their own. Every batch
// commit on the pass's connection used to end with SQLite's automatic
// checkpoint: copying the batch's WAL frames into the database file and two
// fsyncs, about 6-7 ms a batch and ~1 s of a pass over the 200k-message
// benchmark base, with the pass's thread doing nothing else meanwhile (about
// half of it waiting on the disk). Here the pass only signals after a commit;
// a small thread with its own connection runs a PASSIVE checkpoint (it never
// blocks a writer or a reader) while the pass judges its next batch.
// Requests are a counter in shared memory, so signalling costs no message
// and works while the pass never yields to its event loop. A checkpoint that
// is still running when the next commit lands is simply followed by one
// more; the pass's connection keeps a (higher) automatic checkpoint as the
// bound if this thread ever falls behind, and goes back to SQLite's default
// if it fails.
import "server-only";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { backgroundNiceFromHere, LOWER_PRIORITY_PROGRAM } from "./background-priority";

/** Indexes into the shared state. */
const SLOT = { requested: 0, completed: 1, stop: 2, failed: 3 } as const;
const SLOTS = 4;

// The thread's whole program (plain CommonJS, so it runs the same under the
// test runner, the benchmark and the bundled pass thread). A stop request
// also bumps `requested`, so a stop can never be missed between the check
// and the wait, and the last commits are checkpointed before the exit.
const PROGRAM = `
const { workerData } = require("node:worker_threads");
${LOWER_PRIORITY_PROGRAM}
const state = new Int32Array(workerData.state);
let db = null;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma("cache_size = -256");
  let seen = 0;
  for (;;) {
    const requested = Atomics.load(state, ${SLOT.requested});
    if (requested === seen) {
      if (Atomics.load(state, ${SLOT.stop}) === 1) break;
      Atomics.wait(state, ${SLOT.requested}, seen);
      continue;
    }
    seen = requested;
    db.pragma("wal_checkpoint(PASSIVE)");
    Atomics.store(state, ${SLOT.completed}, seen);
    Atomics.notify(state, ${SLOT.completed});
  }
} catch (error) {
  Atomics.store(state, ${SLOT.failed}, 1);
} finally {
  if (db && db.open) db.close();
}
`;

/** The thread's heap holds one connection and no rows. */
const CHECKPOINTER_LIMITS = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 } as const;

export type Checkpointer = {
  /** After a commit: checkpoint everything committed so far, soon, on the thread. */
  request(): void;
  /** True once the thread failed (its checkpoints stop; the caller checkpoints inline again). */
  failed(): boolean;
  /** Checkpoints what was committed, then ends the thread and its connection. */
  stop(): Promise<void>;
};

/** Where the SQLite driver lies, resolved from the app root (the pass thread's bundle may lie anywhere). */
export function driverPath(root: string): string {
  return createRequire(path.join(root, "package.json")).resolve("better-sqlite3");
}

export function startCheckpointer(options: { file: string; root: string }): Checkpointer {
  const state = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: { state: state.buffer, file: options.file, driver: driverPath(options.root), nice: backgroundNiceFromHere() },
    resourceLimits: CHECKPOINTER_LIMITS,
    stdout: false,
    stderr: false,
  });
  // Never what keeps a process alive: a thread left waiting would.
  worker.unref();
  const exited = new Promise<void>((resolve) => {
    worker.once("exit", () => resolve());
  });
  // A failure before the program's own handler (resource limits, a missing driver).
  worker.once("error", () => Atomics.store(state, SLOT.failed, 1));
  const signal = () => {
    Atomics.add(state, SLOT.requested, 1);
    Atomics.notify(state, SLOT.requested);
  };
  let stopped: Promise<void> | null = null;
  return {
    request: () => {
      if (stopped === null) signal();
    },
    failed: () => Atomics.load(state, SLOT.failed) === 1,
    stop: () => {
      if (stopped === null) {
        Atomics.store(state, SLOT.stop, 1);
        signal();
        // Waiting for the exit must keep the caller's thread alive.
        worker.ref();
        stopped = exited;
      }
      return stopped;
    },
  };
}
