// Two app instances on one PostgreSQL database: the checkpoint schedule runs
// only where the worker lease is held (one scheduler across instances), a
// policy saved on the other instance is picked up by the holder's record
// watch, and when the holder dies the other takes the lease and the schedule
// with the stored due time (no second run, no catch-up).
import { afterEach, describe, expect, it } from "vitest";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { database as newDatabase, instance as newInstance, killInstance, minuteTimers, until, type Cleanups } from "@/server/db/pg/multi-instance-test-support";
import { getCleanupScheduleStatus, putCleanupSchedule } from "./service";
import { DAY_MS, waitFor, writeThread } from "./schedule-test-support";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!TEST_POSTGRES_URL)("scheduled checkpoint maintenance across instances [postgres]", () => {
  it("runs only in the instance holding the worker lease; a save on the other is picked up, and the survivor of the holder keeps its due time", { timeout: 180_000 }, async () => {
    const db = await newDatabase(cleanups);
    // Minute-long delays (readiness, the record watch, lease polls) compressed; the daily due time stays parked.
    const timers = minuteTimers().timers;
    const a = await newInstance(cleanups, db, { timers });
    const b = await newInstance(cleanups, db, { timers });
    a.start();
    await until(() => a.checkpoints.schedule.isRunning(), "A holding the lease");
    b.start();
    expect(b.checkpoints.schedule.isRunning()).toBe(false);
    await writeThread(a, 2);
    // Enabled through B (an admin's request may reach either instance): A's watch arms it and runs it.
    await putCleanupSchedule(b, { policy: { enabled: true }, expectedRevision: 0 }, "u-admin");
    expect(b.checkpoints.schedule.nextTimers().cleanup).toBeNull();
    const run = await waitFor(async () => (await getCleanupScheduleStatus(a)).latestRun, { what: "the scheduled cleanup on A" });
    expect(run).toMatchObject({ kind: "checkpoint_cleanup", trigger: "scheduled", state: "succeeded", threadsScanned: 1 });
    const due = Date.parse(run.finishedAt!) + DAY_MS;
    await until(() => a.checkpoints.schedule.nextTimers().cleanup === due, "A arming the next daily run");
    expect(b.checkpoints.schedule.nextTimers()).toEqual({ cleanup: null, expiry: null });
    // B, not running the schedule, states the holder's stored due time.
    expect((await getCleanupScheduleStatus(b)).nextDueAt).toBe(new Date(due).toISOString());

    // A dies (every session it had ends at once): B takes the lease and the schedule, with the stored due time.
    await killInstance(a);
    await until(() => b.checkpoints.schedule.isRunning(), "B taking over the lease");
    await until(() => b.checkpoints.schedule.nextTimers().cleanup === due, "B arming the stored due time");
    const after = await getCleanupScheduleStatus(b);
    expect(after.latestRun).toMatchObject({ id: run.id });
    expect(after.activeOperation).toBeNull();
  });
});
