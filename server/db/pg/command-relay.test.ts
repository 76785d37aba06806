// Two app instances on one PostgreSQL database: commands accepted on the
// instance that does not hold the worker lease are carried out by the one
// that does (a multi-slice manual run completes, a cancel stops the holder's
// pass, an analysis runs there), and a restore on one instance holds every
// instance's maintenance guard, so the other's worker waits at its next batch.
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatUtc } from "@/lib/time/rfc3339";
import { acceptCleanup } from "@/server/compaction/policy/commands";
import { getCompactionStatus, putCompactionPolicy } from "@/server/compaction/service";
import { updateCompactionRecord } from "@/server/compaction/policy/record";
import { createLogger } from "@/server/log";
import { createBackup } from "@/server/maintenance/backups/create";
import { restoreBackup } from "@/server/maintenance/backups/restore";
import { createCompactionWorker } from "@/server/compaction/worker/worker";
import type { RelayedCommand } from "@/server/compaction/worker/command-relay";
import type { OperationEvent } from "@/lib/events/api";
import { closeDatabase } from "@/server/runtime";
import type { OpenRuntime } from "@/server/runtime";
import { TEST_POSTGRES_URL } from "./test-db";
import { database, instance, latestRun, minuteTimers, PER_TASK, recordRuntime, seed, seedMessages, TASKS, until, type Cleanups } from "./multi-instance-test-support";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TOTAL = TASKS * PER_TASK;

/** Seeds and arms the policy with the daily pass due tomorrow, so only the test's commands run; returns the revision. */
async function armForManualRuns(rt: OpenRuntime): Promise<number> {
  const revision = await seed(rt);
  await updateCompactionRecord(rt.stores.compaction, {
    nowMs: Date.now(),
    mutate: (current) => ({ ...current, runtime: { ...current.runtime, nextDueAt: formatUtc(Date.now() + 24 * 3600_000) } }),
  });
  return revision;
}

/**
 * Two instances on one fresh database, their timers held per minute, slices
 * of 25 ms of work, so a pass takes several even when its batches are fast (at
 * 100 ms the faster PostgreSQL pass of #27 sometimes ended in its first slice
 * on a quiet machine, and the tests waiting for it between slices timed out);
 * not started.
 */
async function twoIdleInstances(options: { logA?: string[] } = {}) {
  const clock = minuteTimers();
  cleanups.push(() => clock.release());
  const db = await database(cleanups);
  const pass = { workBudgetMs: 25, yieldMs: 1 };
  const logA = options.logA;
  const a = await instance(cleanups, db, {
    timers: clock.timers,
    pass,
    ...(logA ? { log: createLogger({ level: "info", destination: { write: (line: string) => void logA.push(line) } }) } : {}),
  });
  const b = await instance(cleanups, db, { timers: clock.timers, pass });
  return { a, b, clock };
}

async function twoInstances(options: { logA?: string[] } = {}) {
  const { a, b, clock } = await twoIdleInstances(options);
  const revision = await armForManualRuns(a);
  a.start();
  await until(() => a.compaction.isRunning(), "A holding the lease");
  b.start();
  expect(b.compaction.isRunning()).toBe(false);
  let batches = 0;
  a.bus.subscribe((event) => {
    if (event.type === "messages_changed") batches += 1;
  });
  return { a, b, revision, clock, batches: () => batches };
}

describe.skipIf(!TEST_POSTGRES_URL)("commands accepted on an instance that does not hold the worker lease", () => {
  it("a manual run accepted on the non-holder is carried out by the holder through every slice", async () => {
    const { a, b, revision, clock, batches } = await twoInstances();
    // The first slice ends and its continuation waits: the pass needs more than one slice.
    clock.hold();
    const { operationId } = await b.compaction.requestRun(revision);
    await until(async () => (await a.compaction.betweenSlices?.()) === operationId, "the holder's pass between slices");
    expect((await latestRun(b))?.id).not.toBe(operationId);
    clock.release();
    await until(async () => (await latestRun(b))?.id === operationId, "the pass to end");
    expect(await latestRun(b)).toMatchObject({ id: operationId, state: "succeeded", changedMessages: TOTAL });
    expect(batches()).toBeGreaterThan(1);
    expect((await recordRuntime(a))?.activeOperation).toBeNull();
  }, 90_000);

  it("a cancel accepted on the non-holder stops the holder's pass, keeping its committed counts", async () => {
    const { a, b, revision, clock, batches } = await twoInstances();
    // Continuations (and the record watch) wait: the pass stays between slices, and only NOTIFY can reach the holder.
    clock.hold();
    const { operationId } = await b.compaction.requestRun(revision);
    await until(async () => (await a.compaction.betweenSlices?.()) === operationId, "the holder's pass between slices");
    expect(batches()).toBeGreaterThan(0);
    await b.compaction.cancel(operationId);
    await until(async () => (await latestRun(a))?.id === operationId, "the cancelled pass");
    const run = (await latestRun(a))!;
    expect(run).toMatchObject({ state: "cancelled" });
    expect(run.changedMessages).toBeGreaterThan(0);
    expect(run.changedMessages).toBeLessThan(TOTAL);
    expect(await a.compaction.betweenSlices?.()).toBeNull();
    expect((await recordRuntime(b))?.activeOperation).toBeNull();
  }, 90_000);

  it("a cancel whose notification is lost still ends the holder's pass cancelled (the holder finds it in the record)", async () => {
    const { a, b, revision, clock } = await twoInstances();
    clock.hold();
    const { operationId } = await b.compaction.requestRun(revision);
    await until(async () => (await a.compaction.betweenSlices?.()) === operationId, "the holder's pass between slices");
    // B's worker accepts the cancel and relays it through a relay that drops
    // it, as when the holder's listening session was down at that moment.
    const dropped: RelayedCommand[] = [];
    const lossy = createCompactionWorker({
      store: b.stores.compaction,
      maintenance: b.stores.maintenance,
      dbFile: b.dbFile,
      clock: b.clock,
      timers: b.timers,
      log: b.log,
      newId: b.ids,
      bus: b.bus,
      guard: b.guard,
      relay: { remote: () => true, send: (command) => void dropped.push(command) },
    });
    await lossy.cancel(operationId);
    expect(dropped).toEqual([{ kind: "cancel", operationId }]);
    expect((await recordRuntime(b))?.activeOperation).toMatchObject({ id: operationId, state: "running" });
    // The pass's next slice (or the holder's timer) finds the request in the record.
    clock.release();
    await until(async () => (await latestRun(a))?.id === operationId, "the pass to end");
    const run = (await latestRun(a))!;
    expect(run.state).toBe("cancelled");
    expect(run.changedMessages).toBeGreaterThan(0);
    expect(run.changedMessages).toBeLessThan(TOTAL);
    expect((await recordRuntime(a))?.activeOperation).toBeNull();
  }, 90_000);

  it("[TPR-SCH-01] compact now on the non-holder takes the slot from a scheduled pass waiting between slices, which then resumes", async () => {
    const { a, b, clock } = await twoIdleInstances();
    // Armed with the daily pass due now: it starts after readiness on the holder.
    const revision = await seed(a);
    const ended = new Map<string, OperationEvent>();
    a.bus.subscribe((event) => {
      if (event.type === "operation" && ["succeeded", "partial", "failed", "cancelled"].includes(event.state)) ended.set(event.operationId, event);
    });
    a.start();
    await until(() => a.compaction.isRunning(), "A holding the lease");
    b.start();
    // Its first slice runs; its continuation then waits.
    clock.hold();
    await until(async () => Boolean(await a.compaction.betweenSlices?.()), "the scheduled pass between slices");
    const scheduled = (await a.compaction.betweenSlices!())!;
    expect(b.compaction.isRunning()).toBe(false);
    // The non-holder's status offers "compact now" as the holder's does.
    expect(await getCompactionStatus(b)).toMatchObject({ activeOperation: { id: scheduled }, betweenSlices: true });

    // The holder acts on the relayed pickup only after the record B wrote is read (reading it is a round trip, during
    // which the notification would otherwise reach the holder and its job mark the run running).
    const receive = a.compaction.receiveCommand!.bind(a.compaction);
    let deliver!: () => void;
    const delivered = new Promise<void>((resolve) => {
      deliver = resolve;
    });
    a.compaction.receiveCommand = async (command) => {
      await delivered;
      return receive(command);
    };
    const { operationId } = await b.compaction.requestRun(revision);
    const written = await recordRuntime(b);
    expect(written?.activeOperation).toMatchObject({ id: operationId, kind: "cleanup", state: "queued" });
    expect(written).toMatchObject({ waitingCleanup: { id: scheduled } });
    // A duplicate still meets the manual run in the slot, on either instance.
    await expect(b.compaction.requestRun(revision)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
    await expect(a.compaction.requestRun(revision)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));

    deliver();
    clock.release();
    await until(() => ended.has(operationId) && ended.has(scheduled), "both passes to end");
    expect(ended.get(operationId)).toMatchObject({ state: "succeeded" });
    expect(await latestRun(a)).toMatchObject({ id: scheduled, state: "succeeded" });
    // Together they compacted every row once.
    expect((await latestRun(a))!.changedMessages + ended.get(operationId)!.progress.changedMessages).toBe(TOTAL);
    expect(await recordRuntime(a)).toMatchObject({ activeOperation: null, waitingCleanup: null });
  }, 90_000);

  it("a run whose notification was lost is picked up by the holder's record watch", async () => {
    const { b, revision } = await twoInstances();
    // Accepted into the shared record with no NOTIFY, as when the notification failed.
    await acceptCleanup({ store: b.stores.compaction, nowMs: Date.now(), newId: () => "lost-notify" }, { expectedRevision: revision, priority: "manual" });
    await until(async () => (await latestRun(b))?.id === "lost-notify", "the pass to end");
    expect(await latestRun(b)).toMatchObject({ state: "succeeded", changedMessages: TOTAL });
  }, 90_000);

  it("compaction enabled on the non-holder: the holder runs the initial pass through every slice", async () => {
    const { a, b, clock } = await twoIdleInstances();
    await seedMessages(a);
    a.start();
    await until(() => a.compaction.isRunning(), "A holding the lease");
    b.start();
    clock.hold();
    await putCompactionPolicy(b, { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "skip" });
    const initial = (await recordRuntime(b))?.activeOperation?.id;
    expect(initial).toBeDefined();
    await until(async () => (await a.compaction.betweenSlices?.()) === initial, "the holder's initial pass between slices");
    clock.release();
    await until(async () => {
      const run = await latestRun(b);
      return run !== null && run.state !== "running";
    }, "the initial pass to end");
    expect(await latestRun(b)).toMatchObject({ id: initial, state: "succeeded", changedMessages: TOTAL });
  }, 90_000);

  it("an analysis accepted on the non-holder runs on the holder and completes", async () => {
    const logA: string[] = [];
    const { b } = await twoInstances({ logA });
    const { operationId } = await b.compaction.requestAnalysis({ value: 1, unit: "weeks" });
    await until(async () => (await recordRuntime(b))?.latestAnalysis?.id === operationId, "the analysis to finish");
    expect((await recordRuntime(b))?.latestAnalysis).toMatchObject({ state: "succeeded", eligibleMessages: TOTAL });
    expect(logA.some((line) => line.includes("analysis finished") && line.includes(operationId))).toBe(true);
  }, 90_000);
});

describe.skipIf(!TEST_POSTGRES_URL)("a restore on one instance pauses the others", () => {
  it("while one instance holds the guard for a restore, the other's guard names it and its worker waits at the next batch", async () => {
    const { a, b, revision, batches } = await twoInstances();
    const restore = await b.guard.acquireExclusive({ owner: "restore:test", kind: "restore" });
    // The other instance answers as during a restore: busy, and no maintenance of its own.
    expect((await a.guard.holder())?.kind).toBe("restore");
    expect(await a.guard.tryAcquire({ owner: "vacuum", kind: "vacuum" })).toBeNull();
    await expect(a.guard.acquireExclusive({ owner: "backup", kind: "backup" })).rejects.toThrow(/maintenance/i);

    const { operationId } = await a.compaction.requestRun(revision);
    // The pass defers again and again (continuations are compressed) without committing a batch.
    let deferrals = 0;
    await until(async () => {
      if ((await a.compaction.betweenSlices?.()) === operationId) deferrals += 1;
      return deferrals >= 3;
    }, "the holder's pass to defer");
    expect(batches()).toBe(0);
    expect((await recordRuntime(a))?.activeOperation).toMatchObject({ id: operationId, changedMessages: 0 });

    restore.release();
    // The holder's unlock travels on its own session: the other instance sees it a moment later.
    await vi.waitFor(async () => expect(await a.guard.holder()).toBeNull(), { timeout: 40_000, interval: 10 });
    await until(async () => (await latestRun(a))?.id === operationId, "the pass to finish after the restore");
    expect(await latestRun(a)).toMatchObject({ state: "succeeded", changedMessages: TOTAL });
  }, 90_000);

  it("a real restore on one instance: the other sees the guard held for the restore meanwhile, and free again afterwards", async () => {
    const { a, b } = await twoInstances();
    const receipt = await createBackup({ store: b.stores.maintenance, dbFile: b.dbFile, clock: b.clock, label: "manual", guard: b.guard, log: b.log });
    const seenByA = new Set<string>();
    // One question at a time, asked again as soon as the last is answered.
    let watching = true;
    const watch = (async () => {
      while (watching) {
        seenByA.add((await a.guard.holder())?.kind ?? "none");
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const result = await restoreBackup({
        store: b.stores.maintenance,
        dbFile: b.dbFile,
        name: receipt.name,
        confirm: receipt.name,
        guard: b.guard,
        quiescers: b.quiescers,
        closeDatabase: () => closeDatabase(b),
        log: b.log,
      });
      expect(result).toEqual({ restored: receipt.name, restartRequired: true });
    } finally {
      watching = false;
      await watch;
    }
    expect(seenByA.has("restore")).toBe(true);
    // The holder's unlock travels on its own session: the other instance sees it a moment later.
    await vi.waitFor(async () => expect(await a.guard.holder()).toBeNull(), { timeout: 40_000, interval: 10 });
    expect(await a.guard.tryAcquire({ owner: "vacuum", kind: "vacuum" })).not.toBeNull();
  }, 90_000);
});
