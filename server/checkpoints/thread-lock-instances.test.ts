// Thread locks across instances (#27 item 8, #31's expiry race): two app
// instances on one PostgreSQL database, each a runtime of its own in this
// test process. A run on instance B that holds its thread makes instance A's
// Clean up of that thread wait (it cannot delete the checkpoint B's run
// writes onto), and a run on B that reaches the thread while A's expiry is
// between its judgment and its commit waits for the commit, then answers
// 410 thread_expired instead of writing into the expired thread. Waits are
// observed in pg_locks (an ungranted thread lock), never by sleeping.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { database as newDatabase, instance as newInstance, type Cleanups } from "@/server/db/pg/multi-instance-test-support";
import type { OpenRuntime } from "@/server/runtime";
import { isAppError } from "@/server/errors";
import { runEngine } from "./cleanup/maintenance";
import { THREAD_LOCK_CLASS } from "./pg-thread-locks";
import { startRun, type RunDeps } from "./runs";
import { runExpiryPass } from "./schedule/expiry-pass";
import { saveExpiryPolicy } from "./schedule/expiry-policy";
import { getExpiryStatus } from "./schedule/service";
import { threadService } from "./service";
import type { StampingSaver } from "./stamping-saver";
import { createThread } from "./threads";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ENV: NodeJS.ProcessEnv = { ...process.env, CHECKPOINT_CHANNEL_MODE: "full" };

type Instance = { rt: OpenRuntime; deps: RunDeps };

async function twoInstances(): Promise<{ a: Instance; b: Instance }> {
  const db = await newDatabase(cleanups);
  const open = async (): Promise<Instance> => {
    const rt = await newInstance(cleanups, db);
    return { rt, deps: threadService(rt, ENV) };
  };
  return { a: await open(), b: await open() };
}

/** A gate a test opens by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Resolves once some session waits for a thread lock (granted = false in pg_locks). */
async function someoneWaitsForAThreadLock(rt: OpenRuntime): Promise<void> {
  await vi.waitFor(
    async () => {
      const row = await rt.postgres!.one<{ n: number }>(`select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = $1 and not granted`, [THREAD_LOCK_CLASS]);
      if (!row || row.n < 1) throw new Error("no session waits for a thread lock yet");
    },
    { timeout: 30_000, interval: 20 },
  );
}

/** Holds instance B's first checkpoint write of the run until `release` opens (the run holds its thread meanwhile). */
function pauseFirstPut(deps: RunDeps, release: Promise<void>): Promise<void> {
  const inner = (deps.accessor.saver as StampingSaver).inner;
  const put = inner.put.bind(inner);
  const reached = gate();
  let paused = false;
  inner.put = async (config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, versions: Parameters<typeof put>[3]) => {
    if (!paused) {
      paused = true;
      reached.open();
      await release;
    }
    return put(config, checkpoint, metadata, versions);
  };
  return reached.opened;
}

describe.skipIf(!TEST_POSTGRES_URL)("thread locks across instances [postgres]", () => {
  it("[#27.8] Clean up on instance A waits for a run on instance B of the same thread, then prunes around what the run wrote: the thread stays readable", async () => {
    const { a, b } = await twoInstances();
    // Two runs without admission: the trailing duration leaf (the head B's run continues from) is what Clean up would reclaim.
    const building: RunDeps = { ...b.deps, admit: undefined };
    const { threadId } = await createThread(building);
    for (const content of ["one", "two"]) expect((await startRun(building, { threadId, content })).status).toBe("success");

    const release = gate();
    const reached = pauseFirstPut(b.deps, release.opened);
    const order: string[] = [];
    const run = startRun(building, { threadId, content: "three" }).then((result) => (order.push("run"), result));
    await reached;
    // B's run has read the head and is writing onto it; A's Clean up (contract settings: the trailing leaf is not kept) must wait.
    const cleanup = runEngine({ store: a.deps.store!, locks: a.deps.locks, threadIds: [threadId], dryRun: false, graftLinks: true }).then((report) => (order.push("cleanup"), report));
    await someoneWaitsForAThreadLock(a.rt);
    expect(order).toEqual([]);
    release.open();
    const result = await run;
    const report = await cleanup;
    expect(order).toEqual(["run", "cleanup"]);
    expect(result.status).toBe("success");
    // Every checkpoint B's run wrote still reaches a root: no read of the thread answers 409.
    expect(await a.deps.store!.pathBreak(threadId)).toBeNull();
    expect(await b.deps.store!.pathBreak(threadId)).toBeNull();
    expect(await a.deps.store!.checkpointExists(threadId, result.checkpointId!)).toBe(true);
    expect((await a.deps.accessor.getState(threadId))!.values.messages.length).toBeGreaterThan(0);
    expect(report.threads).toHaveLength(1);
    expect(report.threads[0]!.skipped).toBeNull();
  });

  it("[#31] a run that reaches a thread on instance B while instance A's expiry is committing waits for the commit, then answers 410 thread_expired and writes nothing", async () => {
    const { a, b } = await twoInstances();
    const { threadId } = await createThread(b.deps);
    expect((await startRun(b.deps, { threadId, content: "one" })).status).toBe("success");
    const rowsBefore = (await a.deps.store!.threadTotals(threadId)).checkpoints;
    expect(rowsBefore).toBeGreaterThan(0);

    // The policy armed (backup skipped), without the scheduler: the pass below is driven by hand.
    const status = await getExpiryStatus(a.rt);
    const saved = await saveExpiryPolicy(a.rt.stores.schedule, {
      draft: { enabled: true, age: { value: 1, unit: "days" } },
      expectedRevision: status.policy.revision,
      preparation: "skip",
      nowMs: a.rt.clock.now(),
      newId: a.rt.ids,
    });
    const revision = saved.record.policy.revision;

    // A's pass holds the thread (its lock, its transaction) right before writing the tombstone until the gate opens.
    const release = gate();
    const reached = gate();
    const schedule = a.rt.stores.schedule;
    const held = {
      ...schedule,
      insertTombstone: async (...args: Parameters<typeof schedule.insertTombstone>) => {
        reached.open();
        await release.opened;
        return schedule.insertTombstone(...args);
      },
    };
    const pass = runExpiryPass(
      { store: held, locks: a.deps.locks, clock: a.rt.clock, log: a.rt.log, guard: a.rt.guard, mayRun: () => true, shouldStop: () => false },
      // Every thread's last activity is before a cutoff one day ahead.
      { operationId: "op-expiry", cutoffMs: a.rt.clock.now() + 24 * 60 * 60 * 1000, revision, cursor: null },
    );
    expect(await Promise.race([reached.opened.then(() => "holding the thread" as const), pass])).toBe("holding the thread");
    const late = startRun(b.deps, { threadId, content: "too late" }).then(
      () => null,
      (error: unknown) => error,
    );
    await someoneWaitsForAThreadLock(b.rt);
    release.open();
    expect(await pass).toMatchObject({ outcome: "done", counts: { threads: 1 } });
    const error = await late;
    expect(isAppError(error) && error.code).toBe("thread_expired");
    // Nothing of the late run reached the database.
    expect((await a.deps.store!.threadTotals(threadId)).checkpoints).toBe(0);
    expect(await a.deps.store!.listRuns(threadId)).toEqual([]);
  });
});
