import { afterEach, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { createEventBus } from "@/server/events/bus";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { manualClock } from "@/server/clock";
import { createThreadLocks } from "../thread-lock";
import { buildLeafSibling, FULL, openEngineHarness, type Harness } from "./contract-support";
import { createCheckpointQueue, startOperation, type CheckpointQueue, type OperationDeps } from "./operations";
import { readResult } from "./result-record";
import { createRunHistoryCache } from "./run-history";

let h: Harness | null = null;
let jobs: CheckpointQueue = createCheckpointQueue();
afterEach(async () => {
  await jobs.queue.idle();
  jobs = createCheckpointQueue();
  h?.close();
  h = null;
});

function deps(harness: Harness, over: Partial<OperationDeps> = {}): OperationDeps {
  return {
    store: harness.store,
    clock: manualClock(Date.UTC(2026, 0, 2)),
    log: createLogger({ level: "silent" }),
    guard: createMaintenanceGuard(),
    bus: createEventBus(),
    locks: createThreadLocks(),
    cache: createRunHistoryCache(),
    handleTtlDays: 30,
    jobs,
    wait: async () => undefined,
    newId: () => `op-${Math.random().toString(36).slice(2)}`,
    ...over,
  };
}

describeEachEngine("checkpoint operations", ({ db }) => {
it("a held maintenance guard defers the cleanup until it is free; the admin pass keeps the run-history carrier leaf", async () => {
  h = await openEngineHarness(db(), FULL);
  const shape = await buildLeafSibling(h);
  const guard = createMaintenanceGuard();
  const other = (await guard.tryAcquire({ owner: "backup", kind: "backup" }))!;
  let waits = 0;
  const d = deps(h, {
    guard,
    wait: async () => {
      waits += 1;
      if (waits === 3) other.release();
    },
  });
  startOperation(d, "cleanup");
  await jobs.queue.idle();
  expect(waits).toBe(3);
  const stored = (await readResult(h.store)).result!;
  expect(stored).toMatchObject({ kind: "cleanup", state: "succeeded", threadsScanned: 1, threadsChanged: 1 });
  expect(stored.after.checkpoints).toBeLessThan(stored.before.checkpoints);
  // The idle thread's trailing leaf stays: admission reclaims it.
  const head = (await h.all<{ id: string }>("SELECT max(checkpoint_id) AS id FROM checkpoints WHERE thread_id = ?", [shape.threadId]))[0]!;
  expect(head.id).toBe(shape.headId);
  expect(await guard.holder()).toBeNull();
});

it("stopping while waiting for the guard cancels the operation and changes nothing", async () => {
  h = await openEngineHarness(db(), FULL);
  await buildLeafSibling(h);
  const guard = createMaintenanceGuard();
  await guard.tryAcquire({ owner: "vacuum", kind: "vacuum" });
  const count = async () => Number((await h!.all<{ n: number | string }>("SELECT count(*) AS n FROM checkpoints"))[0]!.n);
  const before = await count();
  let id = "";
  const d = deps(h, {
    guard,
    wait: async () => {
      jobs.queue.cancel(id);
    },
  });
  id = startOperation(d, "cleanup").operationId;
  await jobs.queue.idle();
  expect((await readResult(h.store)).result).toMatchObject({ operationId: id, state: "cancelled" });
  expect(await count()).toBe(before);
});
});
