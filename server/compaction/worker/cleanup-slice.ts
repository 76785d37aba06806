// Where one cleanup slice runs: on a worker thread with its own connection
// (SQLite) or pool (PostgreSQL) when the runtime gave the worker a thread
// bundle, else on this thread (the pass is the same code either way). A
// thread that cannot start falls back to the inline pass for the rest of the
// runtime, logged once; on PostgreSQL a thread whose own pool cannot open a
// session runs that one slice inline.
import "server-only";
import type { Clock } from "@/server/clock";
import type { Logger } from "@/server/log";
import { runCleanupPass } from "../cleanup/pass";
import type { BatchLease, CleanupPassOptions, CleanupPassResult } from "../cleanup/pass-options";
import { PassThreadNoSessionError, PassThreadUnavailableError, runPassInThread } from "../thread/run-in-thread";
import { sliceLimits } from "../thread/protocol";
import { newPassThreadState, type CompactionWorkerDeps } from "./worker-types";

/** The slice's options as the worker builds them: admission is answered on this thread (the maintenance guard). */
export type SliceOptions = Omit<CleanupPassOptions, "admitBatch"> & { admitBatch: () => Promise<BatchLease | null> };

export type SliceRunner = (options: SliceOptions) => Promise<CleanupPassResult>;

export function createSliceRunner(deps: Pick<CompactionWorkerDeps, "passThread" | "passThreadState" | "dbFile"> & { clock: Clock; log: Logger }): SliceRunner {
  const state = deps.passThreadState ?? newPassThreadState();
  return async (options) => {
    const thread = deps.passThread;
    // The beforeBatch seam runs test code between reading and writing: inline only.
    if (!thread || state.unavailable || options.beforeBatch) return runCleanupPass(options);
    try {
      deps.log.debug({ operationId: options.operationId }, "cleanup slice runs on its worker thread");
      return await runPassInThread({
        thread,
        database: thread.postgres ? { engine: "postgres", config: thread.postgres } : { engine: "sqlite", file: deps.dbFile },
        clock: deps.clock,
        operationId: options.operationId,
        shouldStop: options.shouldStop,
        shouldPause: options.shouldPause,
        admitBatch: options.admitBatch,
        onBatch: options.onBatch,
        log: options.log,
        limits: { fixedClock: thread.fixedClock, ...sliceLimits(options) },
        slices: state,
      });
    } catch (error) {
      if (error instanceof PassThreadNoSessionError) {
        // No session for the thread's own pool (PostgreSQL): this slice runs on the runtime's, the next one tries again.
        deps.log.warn({ operationId: options.operationId, code: error.code }, "cleanup thread could not open its sessions: this slice runs inline");
        return runCleanupPass(options);
      }
      if (!(error instanceof PassThreadUnavailableError)) throw error;
      state.unavailable = true;
      deps.log.warn({ operationId: options.operationId, code: error.code }, "cleanup thread unavailable: passes run inline from now on");
      return runCleanupPass(options);
    }
  };
}
