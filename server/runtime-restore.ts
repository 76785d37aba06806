// What the runtime stops and starts again around a restore (the quiescers
// the restore calls): the event streams end (each was admitted by the old
// database's sessions; its client reconnects), the checkpoint schedule's
// timers stop and are armed again from the restored records, and the
// compaction worker stops; the runtime then reopens its SQLite connection
// and binds a fresh worker to it (a stopped worker's queue does not run
// again). On PostgreSQL the pool stays open across the pause.
import type { MultiInstance } from "./runtime-postgres";
import { reopenSqlite } from "./runtime-database";
import { holdsWorkers } from "./runtime-lease";
import type { Runtime, RuntimeLifecycle } from "./runtime-types";
import type { WorkerBuilder } from "./runtime-worker";

export function registerRestoreQuiescers(rt: Runtime, options: { multi: MultiInstance | null; lifecycle: RuntimeLifecycle; buildWorker: WorkerBuilder }): void {
  const { multi, lifecycle, buildWorker } = options;
  const { target } = rt;

  rt.quiescers.register("event-streams", {
    stop: async () => {
      rt.streams.endAll("restored");
    },
    start: () => {},
  });

  rt.quiescers.register("checkpoint-schedule", {
    stop: () => rt.checkpoints.schedule.stop(),
    start: () => {
      if (lifecycle.stopped || !lifecycle.started || !holdsWorkers(multi)) return;
      rt.checkpoints.schedule.start();
    },
  });

  rt.quiescers.register("compaction-worker", {
    stop: async () => {
      await rt.compaction?.stop();
    },
    start: () => {
      if (lifecycle.stopped) return;
      if (target.engine === "postgres") {
        if (rt.stores && rt.dbFile) {
          rt.compaction = buildWorker(rt.dbFile, rt.stores);
          if (lifecycle.started && holdsWorkers(multi)) void rt.compaction.start();
        }
        return;
      }
      if (target.engine !== "sqlite") return;
      try {
        const { handle, stores } = reopenSqlite(rt, target.file);
        rt.compaction = buildWorker(handle.file, stores);
        if (lifecycle.started) void rt.compaction.start();
      } catch (error) {
        rt.log.error({ err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "reopening the database failed");
      }
    },
  });
}
