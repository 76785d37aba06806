// One app instance for scripts/bench/pg-failover.ts: a runtime on
// DATABASE_URL with every timer delay capped at 50 ms (lease polls, the
// one-minute readiness delay, continuations; BENCH_REAL_TIMERS=1: the
// system's timers, as in production), printing "leader" once its worker
// holds the lease. Killed with SIGKILL by the parent.
import type { Timers } from "@/server/clock";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime } from "@/server/runtime";

const fastTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(ms, 50)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

async function main(): Promise<void> {
  const timers = process.env.BENCH_REAL_TIMERS === "1" ? undefined : fastTimers;
  const rt = openRuntime(await createMigratedRuntime({ env: process.env, timers, log: createLogger({ level: "error", destination: process.stderr }) }));
  if (!rt) {
    console.error("instance: the database could not be opened");
    process.exit(1);
  }
  rt.start();
  console.log("ready");
  const watch = setInterval(() => {
    if (rt.compaction.isRunning()) {
      console.log("leader");
      clearInterval(watch);
    }
  }, 20);
  setInterval(() => undefined, 60_000);
}

void main();
