// Where the runtime's workers (the compaction worker and the checkpoint
// schedule) run: at once on SQLite; on PostgreSQL on the one instance that
// holds the worker lease, started when it takes the lease and stopped when it
// loses it, so another instance may take over.
import type { MultiInstance } from "./runtime-postgres";
import type { Runtime, RuntimeLifecycle } from "./runtime-types";
import type { WorkerBuilder } from "./runtime-worker";

/** On PostgreSQL a worker that takes the lease on its first try (a holder that died may have left a pass) resumes after this, not after a minute. */
export const TAKEOVER_READINESS_MS = 10_000;

/** Whether this instance runs the workers now: always without instances to share with, else while it holds the lease. */
export function holdsWorkers(multi: MultiInstance | null): boolean {
  return multi ? multi.lease.held() : true;
}

/** Starts the workers now (SQLite), or each time this instance takes the lease (PostgreSQL). */
export function startWorkers(rt: Runtime, options: { multi: MultiInstance | null; lifecycle: RuntimeLifecycle; buildWorker: WorkerBuilder }): void {
  const { multi, lifecycle, buildWorker } = options;
  const run = (start: { readinessMs?: number } = {}) => {
    void rt.compaction?.start(start);
    rt.checkpoints.schedule.start();
  };
  if (!multi) return run();
  // A lost lease stops both (another instance may start its own now); a stopped worker does not run again,
  // so a fresh one waits for the next acquisition.
  let stopping: Promise<void> = Promise.resolve();
  multi.lease.start({
    // A holder may have died mid-pass: resume within TAKEOVER_READINESS_MS, at once when another instance held the lease before.
    acquired: ({ takeover }) => void stopping.then(() => !lifecycle.stopped && multi.lease.held() && run({ readinessMs: takeover ? 0 : TAKEOVER_READINESS_MS })),
    lost: () => {
      stopping = (async () => {
        await rt.checkpoints.schedule.stop();
        await rt.compaction?.stop();
        if (!lifecycle.stopped && rt.stores && rt.dbFile) rt.compaction = buildWorker(rt.dbFile, rt.stores);
      })().catch((error: unknown) => rt.log.error({ err: { name: (error as Error)?.name } }, "stopping the workers after a lost lease failed"));
    },
  });
}
