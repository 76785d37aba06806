// When scheduled checkpoint maintenance runs, with an injected clock and
// timers on both engines: inside MAINTENANCE_WINDOW and not outside it,
// after a restart (the persisted next due time; an interrupted pass and a
// thread left half-deleted continue), and not while another heavy
// operation holds the maintenance guard.
import { afterEach, describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import { listAuditEntries } from "@/server/audit/list";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { createLogger } from "@/server/log";
import { createMigratedRuntime, openRuntime, type OpenRuntime } from "@/server/runtime";
import type { Lease } from "@/server/maintenance/guard";
import { getCheckpointStorage } from "../cleanup/service";
import { getCleanupScheduleStatus, getExpiryStatus, putCleanupSchedule, putExpiryPolicy } from "./service";
import { DAY_MS, scheduleTestEnv, threadRows, waitFor, writeThread, type ScheduleTestEnv } from "./schedule-test-support";

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const WINDOW = { MAINTENANCE_WINDOW: "01:00-05:00 UTC" };

let env: ScheduleTestEnv | null = null;
let second: OpenRuntime | null = null;
let held: Lease | null = null;
afterEach(async () => {
  held?.release();
  held = null;
  await second?.stop();
  second = null;
  await env?.rt.dispose();
  env = null;
});

/** A second runtime on the same database and clock: the server after a restart. */
async function restart(e: ScheduleTestEnv, extraEnv: Record<string, string> = {}): Promise<OpenRuntime> {
  const target = e.rt.target;
  const url = target.engine === "sqlite" ? `file:${target.file}` : target.engine === "postgres" ? target.url : "";
  const rt = openRuntime(await createMigratedRuntime({ env: { SESSION_IDLE_MINUTES: "0", DATABASE_URL: url, DATA_DIR: e.rt.dir, ...extraEnv }, clock: e.time.clock, timers: e.time.timers, log: createLogger({ level: "silent" }) }));
  if (!rt) throw new Error("the restarted runtime did not open");
  return rt;
}

const tomorrowAt = (startMs: number, hours: number) => startMs - 12 * HOUR_MS + DAY_MS + hours * HOUR_MS;

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`scheduled checkpoint maintenance [${engine}]`, () => {
    it("the daily cleanup runs inside MAINTENANCE_WINDOW and not outside it, and is next due a day after it ended", { timeout: 120_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true, env: WINDOW });
      const start = env.time.clock.now();
      const events: SystemEvent[] = [];
      env.rt.bus.subscribe((event) => void events.push(event));
      await writeThread(env.rt, 2);
      const enabled = await putCleanupSchedule(env.rt, { policy: { enabled: true }, expectedRevision: 0 }, "u-admin");
      // Enabled at 12:00 UTC: the first run waits for 01:00 the next day.
      expect(enabled.nextDueAt).toBe(new Date(tomorrowAt(start, 1)).toISOString());
      expect(enabled.maintenanceWindow).toMatchObject({ open: false, start: "01:00", end: "05:00" });
      env.time.advance(13 * HOUR_MS - MINUTE_MS);
      expect((await getCleanupScheduleStatus(env.rt)).latestRun).toBeNull();
      expect((await getCheckpointStorage(env.rt)).lastResult).toBeNull();
      env.time.advance(2 * MINUTE_MS);
      const run = await waitFor(async () => (await getCleanupScheduleStatus(env!.rt)).latestRun, { what: "the scheduled cleanup" });
      expect(run).toMatchObject({ kind: "checkpoint_cleanup", trigger: "scheduled", state: "succeeded", threadsScanned: 1 });
      const finished = Date.parse(run.finishedAt!);
      expect(finished).toBeGreaterThanOrEqual(tomorrowAt(start, 1));
      expect(finished).toBeLessThan(tomorrowAt(start, 5));
      expect((await getCheckpointStorage(env.rt)).lastResult).toMatchObject({ kind: "cleanup", trigger: "scheduled", state: "succeeded" });
      // Progress and the end as events (counts only), the end audited as the server's.
      expect(events.filter((e) => e.type === "operation" && e.operationId === run.id).map((e) => e.type === "operation" && e.state)).toEqual(expect.arrayContaining(["running", "succeeded"]));
      expect(events.find((e) => e.type === "maintenance_finished")).toMatchObject({ operationId: run.id, kind: "checkpoint_cleanup", trigger: "scheduled", state: "succeeded", threads: run.threads, removedBytes: run.bytes });
      const audit = await listAuditEntries(env.rt.stores.audit, { kind: "checkpoints.scheduled_cleanup", limit: 10 }, 180);
      expect(audit.entries).toEqual([expect.objectContaining({ actor: "system", result: "ok", detail: { operationId: run.id, threads: run.threads, checkpoints: run.checkpoints, freedBytes: run.bytes } })]);
      // What follows is armed once the run's end is recorded.
      await waitFor(() => env!.rt.checkpoints.schedule.nextTimers().cleanup === finished + DAY_MS, { what: "the next daily run" });
      expect((await getCleanupScheduleStatus(env.rt)).nextDueAt).toBe(new Date(finished + DAY_MS).toISOString());
    });

    it("skips while another heavy operation holds the maintenance guard, changing nothing, and continues a minute after it is free", { timeout: 120_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true });
      await writeThread(env.rt, 2);
      await putCleanupSchedule(env.rt, { policy: { enabled: true }, expectedRevision: 0 }, "u-admin");
      held = await env.rt.guard.tryAcquire({ owner: "test-backup", kind: "backup" });
      expect(held).not.toBeNull();
      env.time.advance(MINUTE_MS + 1);
      const waiting = await waitFor(async () => {
        const op = (await getCleanupScheduleStatus(env!.rt)).activeOperation;
        return op?.state === "partial" ? op : null;
      }, { what: "the deferred cleanup" });
      expect(waiting).toMatchObject({ errorCode: "maintenance_busy", threadsScanned: 0, checkpoints: 0 });
      expect((await getCheckpointStorage(env.rt)).lastResult).toMatchObject({ state: "partial", errorCode: "maintenance_busy", threadsScanned: 0 });
      // Still held a minute later: it waits again.
      env.time.advance(MINUTE_MS + 1);
      await waitFor(async () => env!.rt.checkpoints.jobs.active.size === 0 && env!.rt.checkpoints.schedule.nextTimers().cleanup !== null);
      expect((await getCleanupScheduleStatus(env.rt)).latestRun).toBeNull();
      held!.release();
      held = null;
      env.time.advance(MINUTE_MS + 1);
      const run = await waitFor(async () => (await getCleanupScheduleStatus(env!.rt)).latestRun, { what: "the continued cleanup" });
      expect(run).toMatchObject({ id: waiting.id, state: "succeeded", threadsScanned: 1 });
    });

    it("after a restart the persisted next due time holds: no catch-up run at start", { timeout: 120_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true });
      await writeThread(env.rt, 1);
      await putCleanupSchedule(env.rt, { policy: { enabled: true }, expectedRevision: 0 }, "u-admin");
      env.time.advance(MINUTE_MS + 1);
      const run = await waitFor(async () => (await getCleanupScheduleStatus(env!.rt)).latestRun);
      await env.rt.stop();
      env.time.advance(2 * HOUR_MS);
      second = await restart(env);
      second.start();
      const due = Date.parse(run.finishedAt!) + DAY_MS;
      await waitFor(() => second!.checkpoints.schedule.nextTimers().cleanup === due, { what: "the restored schedule" });
      expect((await getCleanupScheduleStatus(second)).nextDueAt).toBe(new Date(due).toISOString());
    });

    it("thread expiry waits for the window; a pass interrupted by a restart and a thread left half-deleted are finished after it", { timeout: 180_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true, env: WINDOW, schedule: { limits: { batchRows: 4 } } });
      const start = env.time.clock.now();
      const a = await writeThread(env.rt, 3);
      const b = await writeThread(env.rt, 3);
      env.time.clock.advance(30 * DAY_MS);
      const status = await putExpiryPolicy(env.rt, { policy: { enabled: true, age: { value: 7, unit: "days" } }, expectedRevision: 0, preparation: "skip" }, "u-admin");
      expect(status.armed).toBe(true);
      expect(status.activeOperation).toBeNull();
      // Outside the window nothing runs.
      env.time.advance(HOUR_MS);
      expect((await threadRows(env.rt, a.threadId)).checkpoints).toBeGreaterThan(0);
      // The guard is held when the window opens: the pass takes its slot and waits.
      held = await env.rt.guard.tryAcquire({ owner: "test-backup", kind: "backup" });
      env.time.advance(tomorrowAt(start + 30 * DAY_MS, 1) - env.time.clock.now() + MINUTE_MS);
      const waiting = await waitFor(async () => {
        const op = (await getExpiryStatus(env!.rt)).activeOperation;
        return op?.state === "partial" ? op : null;
      }, { what: "the waiting pass" });
      expect(waiting).toMatchObject({ kind: "thread_expiry", errorCode: "maintenance_busy", threads: 0 });
      // A crash after thread A's tombstone and one batch of its rows (batches of 4 rows).
      await env.rt.stores.schedule.insertTombstone({
        threadId: a.threadId,
        state: "deleting",
        expiredAtMs: env.time.clock.now(),
        lastActivityMs: null,
        cutoffMs: Date.parse(waiting.cutoff!),
        operationId: waiting.id,
        policyRevision: waiting.revision!,
        ...(await env.rt.stores.schedule.threadSize(a.threadId)),
      });
      await env.rt.stores.schedule.deleteThreadRows(a.threadId, 4);
      held!.release();
      held = null;
      await env.rt.stop();
      second = await restart(env, WINDOW);
      second.start();
      // A minute after readiness, inside the window, the pass continues.
      const at = await waitFor(() => second!.checkpoints.schedule.nextTimers().expiry, { what: "the armed continuation" });
      expect(at - env.time.clock.now()).toBe(MINUTE_MS);
      env.time.advance(MINUTE_MS + 1);
      const run = await waitFor(async () => (await getExpiryStatus(second!)).latestRun, { what: "the continued pass" });
      expect(run).toMatchObject({ id: waiting.id, state: "succeeded", threads: 1 });
      for (const thread of [a, b]) expect(await threadRows(second, thread.threadId)).toEqual({ checkpoints: 0, writes: 0, blobs: 0, runs: 0 });
      expect(await second.stores.schedule.readTombstone(a.threadId)).toMatchObject({ state: "expired", operationId: waiting.id });
      expect(await second.stores.schedule.readTombstone(b.threadId)).toMatchObject({ state: "expired" });
      expect((await getExpiryStatus(second)).expiredThreads).toBe(2);
    });
  });
}
