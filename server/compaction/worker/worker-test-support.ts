// Shared set-up of the worker tests: a worker on a real SQLite test file
// with a manual clock, an event log and timers whose long waits (schedule,
// continuations) wait until the test fires them.
import { manualClock, type Clock, type Timers } from "@/server/clock";
import type { TestDb } from "@/server/db/test-db";
import { createEventBus, type EventBus } from "@/server/events/bus";
import { sequentialIds } from "@/server/ids";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import type { SystemEvent } from "@/lib/events/api";

import { NOW_MS, readRecordSync, storeOf } from "../test-support";
import { createCompactionWorker, type CompactionWorkerDeps } from "./worker";

/** Short waits (batch yields, guard retries) run on the real event loop; long ones are parked. */
export function hybridTimers() {
  const parked: Array<{ at: number; fn: () => void; id: number }> = [];
  let seq = 0;
  const timers: Timers = {
    setTimeout(fn, ms) {
      if (ms <= 1000) return setTimeout(fn, 0);
      const id = ++seq;
      parked.push({ at: ms, fn, id });
      return { parked: id };
    },
    clearTimeout(handle) {
      if (handle && typeof handle === "object" && "parked" in handle) {
        const i = parked.findIndex((p) => p.id === (handle as { parked: number }).parked);
        if (i >= 0) parked.splice(i, 1);
      } else clearTimeout(handle as NodeJS.Timeout);
    },
  };
  return { timers, parked, fireNext: () => parked.shift()?.fn() };
}

/** The dependencies every worker test starts from: the test file's stores, silent log, sequential ids, a fresh guard. */
export function baseWorkerDeps(t: TestDb, options: { clock: Clock; timers: Timers; bus?: EventBus }): CompactionWorkerDeps {
  return {
    store: storeOf(t.sqlite),
    maintenance: createSqliteMaintenanceStore(t.db),
    dbFile: t.file,
    clock: options.clock,
    timers: options.timers,
    log: createLogger({ level: "silent" }),
    newId: sequentialIds("op"),
    bus: options.bus ?? createEventBus(),
    guard: createMaintenanceGuard(),
  };
}

export function makeTestWorker(options: { t: TestDb; events: SystemEvent[]; overrides?: Partial<CompactionWorkerDeps> }) {
  const { t, events } = options;
  const clock = manualClock(NOW_MS);
  const { timers, parked, fireNext } = hybridTimers();
  const bus = createEventBus();
  bus.subscribe((e) => events.push(e));
  const deps: CompactionWorkerDeps = {
    ...baseWorkerDeps(t, { clock, timers, bus }),
    pass: { yieldMs: 0 },
    ...options.overrides,
  };
  return { worker: createCompactionWorker(deps), clock, parked, fireNext, deps, bus };
}

export function readRecordOf(t: TestDb) {
  const read = readRecordSync(t.sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}
