// Thread expiry end to end on the service verbs, on both engines
// (PostgreSQL with TEST_POSTGRES_URL): preparation rules, analysis, the pass
// deleting whole threads (checkpoints, writes, blobs, run rows) behind a
// tombstone, threads in use kept, 410 thread_expired for the thread and its
// handles, and the records the status shows.
import { afterEach, describe, expect, it } from "vitest";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { isAppError } from "@/server/errors";
import { withThreadLock } from "../thread-lock";
import { liveThreadService, threadService } from "../service";
import { startRun } from "../runs";
import { readThreadState } from "../threads";
import { analyzeExpiry, getExpiryStatus, putExpiryPolicy, runExpiryNow } from "./service";
import { DAY_MS, scheduleTestEnv, threadRows, waitFor, writeThread, type ScheduleTestEnv } from "./schedule-test-support";

let env: ScheduleTestEnv | null = null;
afterEach(async () => {
  await env?.rt.dispose();
  env = null;
});

const ninetyDays = { value: 90, unit: "days" } as const;

async function enable(e: ScheduleTestEnv, age: { value: number; unit: "days" | "weeks" | "months" } = ninetyDays, preparation: "backup" | "skip" = "skip") {
  const status = await getExpiryStatus(e.rt);
  return putExpiryPolicy(e.rt, { policy: { enabled: true, age }, expectedRevision: status.policy.revision, preparation }, "u-admin", { outsideWindow: "run" });
}

async function finishedRun(e: ScheduleTestEnv, afterId?: string) {
  return waitFor(async () => {
    const status = await getExpiryStatus(e.rt);
    return status.latestRun && status.latestRun.id !== afterId && status.activeOperation === null ? status.latestRun : null;
  }, { what: "a finished thread expiry pass" });
}

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`thread expiry [${engine}]`, () => {
    it("first enable needs a backup or skip choice (backup_choice_required, nothing saved)", async () => {
      env = await scheduleTestEnv(engine, { start: true });
      await expect(putExpiryPolicy(env.rt, { policy: { enabled: true, age: ninetyDays }, expectedRevision: 0 }, "u-admin")).rejects.toMatchObject({ code: "backup_choice_required" });
      const status = await getExpiryStatus(env.rt);
      expect(status.policy).toMatchObject({ enabled: false, revision: 0 });
      expect(status.armed).toBe(false);
    });

    it("deletes threads idle longer than the period whole, keeps recent ones, and an expired thread and its handles answer thread_expired (410)", { timeout: 120_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true });
      const old = await writeThread(env.rt, 3);
      const before = await threadRows(env.rt, old.threadId);
      expect(before.checkpoints).toBeGreaterThan(0);
      expect(before.runs).toBe(3);
      env.time.clock.advance(100 * DAY_MS);
      const recent = await writeThread(env.rt, 1);

      // Analysis first: what the period would expire, nothing deleted.
      const { operationId: analysisId } = await analyzeExpiry(env.rt, ninetyDays);
      const analysis = await waitFor(async () => {
        const a = (await getExpiryStatus(env!.rt)).latestAnalysis;
        return a?.id === analysisId ? a : null;
      });
      expect(analysis).toMatchObject({ state: "succeeded", threadsScanned: 2, threads: 1, skipped: { recent_activity: 1 } });
      expect(analysis.checkpoints).toBe(before.checkpoints);
      expect(analysis.bytes).toBeGreaterThan(0);
      expect(await threadRows(env.rt, old.threadId)).toEqual(before);

      await enable(env);
      const run = await finishedRun(env);
      expect(run).toMatchObject({ state: "succeeded", kind: "thread_expiry", threads: 1, checkpoints: analysis.checkpoints, bytes: analysis.bytes, skipped: { recent_activity: 1 } });
      expect(await threadRows(env.rt, old.threadId)).toEqual({ checkpoints: 0, writes: 0, blobs: 0, runs: 0 });
      expect((await threadRows(env.rt, recent.threadId)).checkpoints).toBeGreaterThan(0);
      expect((await getExpiryStatus(env.rt)).expiredThreads).toBe(1);

      // The thread and every handle it handed out answer 410, never 404.
      const refused = await liveThreadService(env.rt, old.threadId).catch((error: unknown) => error);
      expect(isAppError(refused) && refused.code).toBe("thread_expired");
      expect(refused).toMatchObject({ extra: { threadId: old.threadId, expiredAt: expect.any(String), lastActivityAt: expect.any(String) } });
      for (const handle of old.handles) {
        const resume = await startRun(threadService(env.rt), { threadId: old.threadId, content: "again", checkpointId: handle }).catch((error: unknown) => error);
        expect(isAppError(resume) && resume.code).toBe("thread_expired");
      }
      // The kept thread still resumes from its handle.
      const kept = await startRun(await liveThreadService(env.rt, recent.threadId), { threadId: recent.threadId, content: "more", checkpointId: recent.handles[0] });
      expect(kept.status).toBe("success");
    });

    it("deletes an expired thread in bounded batches: no deletion takes more than batchRows rows, and the thread answers 410 while rows are still left", { timeout: 120_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true, schedule: { limits: { batchRows: 3 } } });
      const old = await writeThread(env.rt, 3);
      const before = await threadRows(env.rt, old.threadId);
      const rows = before.checkpoints + before.writes + before.blobs + before.runs;
      expect(rows).toBeGreaterThan(6);
      env.time.clock.advance(100 * DAY_MS);
      // A spy on the real store: each call is one writer transaction of the pass.
      const store = env.rt.stores.schedule;
      const deleteThreadRows = store.deleteThreadRows.bind(store);
      const batches: number[] = [];
      let answeredBeforeEnd = false;
      store.deleteThreadRows = async (threadId, maxRows) => {
        const deleted = await deleteThreadRows(threadId, maxRows);
        batches.push(deleted.checkpoints + deleted.writes + deleted.blobs + deleted.runs);
        // After the first transaction (tombstone + first batch) committed, with rows still left.
        if (batches.length === 2) {
          const refused = await liveThreadService(env!.rt, threadId).catch((error: unknown) => error);
          const left = await threadRows(env!.rt, threadId);
          answeredBeforeEnd = isAppError(refused) && refused.code === "thread_expired" && left.checkpoints + left.writes > 0;
        }
        return deleted;
      };
      await enable(env);
      const run = await finishedRun(env);
      expect(run).toMatchObject({ state: "succeeded", threads: 1 });
      expect(Math.max(...batches)).toBeLessThanOrEqual(3);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(rows);
      expect(batches.length).toBeGreaterThanOrEqual(Math.ceil(rows / 3));
      expect(answeredBeforeEnd).toBe(true);
      expect(await threadRows(env.rt, old.threadId)).toEqual({ checkpoints: 0, writes: 0, blobs: 0, runs: 0 });
      expect(await env.rt.stores.schedule.readTombstone(old.threadId)).toMatchObject({ state: "expired", checkpoints: before.checkpoints, writes: before.writes });
    });

    it("a thread with a run in flight is never expired; once the run ends with a new run it is recent and kept", { timeout: 120_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true });
      const busy = await writeThread(env.rt, 1);
      env.time.clock.advance(100 * DAY_MS);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // A run holds the thread's lock for its whole duration (runs.ts).
      const inFlight = withThreadLock(env.rt.checkpoints.locks, busy.threadId, () => held);
      await enable(env);
      const first = await finishedRun(env);
      expect(first).toMatchObject({ state: "succeeded", threads: 0, skipped: { run_in_flight: 1 } });
      expect((await threadRows(env.rt, busy.threadId)).checkpoints).toBeGreaterThan(0);
      release();
      await inFlight;
      await startRun(threadService(env.rt), { threadId: busy.threadId, content: "finished later" });
      const status = await getExpiryStatus(env.rt);
      await runExpiryNow(env.rt, { expectedRevision: status.policy.revision, outsideWindow: true }, "u-admin");
      const second = await finishedRun(env, first.id);
      expect(second).toMatchObject({ threads: 0, skipped: { recent_activity: 1 } });
      expect((await readThreadState(await liveThreadService(env.rt, busy.threadId), busy.threadId)).values.messages.length).toBeGreaterThan(0);
    });

    it("shortening the period asks for preparation again; lengthening it keeps the approval", async () => {
      env = await scheduleTestEnv(engine, { start: true });
      let status = await enable(env, { value: 6, unit: "months" });
      expect(status.armed).toBe(true);
      const save = (age: { value: number; unit: "days" | "weeks" | "months" }, preparation?: "backup" | "skip") =>
        putExpiryPolicy(env!.rt, { policy: { enabled: true, age }, expectedRevision: status.policy.revision, ...(preparation ? { preparation } : {}) }, "u-admin", { outsideWindow: "run" });
      await expect(save({ value: 3, unit: "months" })).rejects.toMatchObject({ code: "backup_choice_required" });
      // 26 weeks is shorter than some 6-month spans (182 days against 181-184): preparation again.
      await expect(save({ value: 26, unit: "weeks" })).rejects.toMatchObject({ code: "backup_choice_required" });
      status = await save({ value: 12, unit: "months" });
      expect(status).toMatchObject({ armed: true, policy: { age: { value: 12, unit: "months" } } });
      status = await save({ value: 400, unit: "days" });
      expect(status.armed).toBe(true);
      await expect(save({ value: 399, unit: "days" })).rejects.toMatchObject({ code: "backup_choice_required" });
      status = await save({ value: 58, unit: "weeks" });
      expect(status.armed).toBe(true);
      status = await save({ value: 30, unit: "days" }, "skip");
      expect(status).toMatchObject({ armed: true, preparation: { state: "ready", choice: "skip" } });
    });
  });
}
