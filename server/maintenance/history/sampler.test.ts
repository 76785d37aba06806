// The storage-history sampler with an injected clock and timers, on every
// engine: one daily sample per UTC day (also across a restart), deferred
// while another maintenance operation holds the guard, a sample after each
// maintenance operation the bus reports ending (once per operation), and
// samples pruned after 400 days.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { STORAGE_HISTORY_RETENTION_DAYS } from "@/lib/database/history-api";
import type { SystemEvent } from "@/lib/events/api";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { createEventBus, type EventBus } from "@/server/events/bus";
import { createLogger } from "@/server/log";
import { manualTime, type ManualTime } from "@/server/manual-time-test-support";
import { createEngineTestRuntime, type EngineTestRuntime } from "@/server/runtime-test-support";
import { BUSY_RETRY_MS, createStorageHistory, DAILY_OFFSET_MS, FIRST_CHECK_DELAY_MS, nextDailyAt, type StorageHistory } from "./sampler";
import { dailyKey } from "./sample";
import { toWireSample } from "./row";
import type { StoredSample } from "./store";

const DAY = 24 * 60 * 60 * 1000;
// 14:00 UTC: the first check (a minute after start) falls on this day.
const START = Date.UTC(2026, 2, 10, 14, 0, 0);

/** Waits for a state of the sampler (its sizes come from a worker thread or the server), never for a set time. */
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("nextDailyAt", () => {
  it("is today's UTC midnight plus the offset until then, tomorrow's after", () => {
    const midnight = Date.UTC(2026, 2, 10);
    expect(nextDailyAt(midnight)).toBe(midnight + DAILY_OFFSET_MS);
    expect(nextDailyAt(midnight + DAILY_OFFSET_MS)).toBe(midnight + DAY + DAILY_OFFSET_MS);
    expect(nextDailyAt(START)).toBe(midnight + DAY + DAILY_OFFSET_MS);
  });
});

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`storage history sampler [${engine}]`, () => {
    let rt: EngineTestRuntime;
    let time: ManualTime;
    let bus: EventBus;
    let published: SystemEvent[];
    const samplers: StorageHistory[] = [];

    beforeEach(async () => {
      time = manualTime(START);
      // The sampler has the manual time to itself (the runtime's own timers, PostgreSQL's event bridge among them, stay real).
      rt = await createEngineTestRuntime(engine, { prefix: "history-sampler-" });
      bus = createEventBus();
      published = [];
      bus.subscribe((event) => void published.push(event));
    });
    afterEach(async () => {
      for (const sampler of samplers.splice(0)) await sampler.stop();
      await rt.dispose();
    });

    const sampler = () => {
      const created = createStorageHistory({
        stores: () => rt.stores,
        engine,
        dbFile: engine === "sqlite" ? rt.dbFile : null,
        clock: time.clock,
        timers: time.timers,
        log: createLogger({ level: "silent" }),
        bus,
        guard: rt.guard,
      });
      samplers.push(created);
      return created;
    };
    const rows = async () => (await rt.stores.history.listSince({ fromMs: 0 })).map((row) => toWireSample(row as StoredSample, { withTables: true })!);
    const count = async () => (await rt.stores.history.listSince({ fromMs: 0 })).length;
    /** The sampler armed its next daily check (one timer pending) after `n` samples. */
    const settled = (n: number) => until(async () => (await count()) === n && time.pendingDelays().length === 1, `${n} samples and the next check armed`);

    it("takes the daily sample a minute after start, then once per UTC day after midnight", async () => {
      const history = sampler();
      history.start();
      history.start();
      expect(time.pendingDelays()).toEqual([FIRST_CHECK_DELAY_MS]);
      time.advance(FIRST_CHECK_DELAY_MS - 1);
      expect(await count()).toBe(0);
      time.advance(1);
      await settled(1);
      const [first] = await rows();
      expect(first).toMatchObject({ trigger: "daily", atMs: START + FIRST_CHECK_DELAY_MS, operationId: null, reclaimedBytes: null, method: engine === "postgres" ? "catalog" : "dbstat" });
      expect(first!.tables!.map((t) => t.name)).toContain("messages");
      expect(first!.usedBytes).toBe(first!.areas.messages + first!.areas.checkpoints + first!.areas.other);
      // The next check waits for the next UTC midnight plus the offset, not 24 hours.
      expect(time.pendingDelays()).toEqual([Date.UTC(2026, 2, 11) + DAILY_OFFSET_MS - time.clock.now()]);
      for (let day = 1; day <= 3; day++) {
        time.advance(time.pendingDelays()[0]!);
        await settled(1 + day);
      }
      const days = (await rows()).map((row) => new Date(row.atMs).toISOString());
      expect(days).toEqual(["2026-03-10T14:01:00.000Z", "2026-03-11T00:05:00.000Z", "2026-03-12T00:05:00.000Z", "2026-03-13T00:05:00.000Z"]);
      expect(published.filter((e) => e.type === "storage_sampled")).toHaveLength(4);
    });

    it("resumes after a restart without a second sample the same day", async () => {
      const before = sampler();
      before.start();
      time.advance(FIRST_CHECK_DELAY_MS);
      await settled(1);
      await before.stop();
      expect(time.pendingDelays()).toEqual([]);

      time.advance(3 * 60 * 60 * 1000);
      const after = sampler();
      after.start();
      time.advance(FIRST_CHECK_DELAY_MS);
      await until(() => time.pendingDelays().length === 1, "the restarted sampler's next check");
      expect(await count()).toBe(1);
      expect(await rt.stores.history.hasKey(dailyKey(time.clock.now()))).toBe(true);
      time.advance(time.pendingDelays()[0]!);
      await settled(2);
    });

    it("waits while another maintenance operation holds the guard, and samples once it is released", async () => {
      const lease = (await rt.guard.tryAcquire({ owner: "vacuum", kind: "vacuum" }))!;
      const history = sampler();
      history.start();
      time.advance(FIRST_CHECK_DELAY_MS);
      await until(() => time.pendingDelays()[0] === BUSY_RETRY_MS, "the busy retry");
      expect(await count()).toBe(0);
      lease.release();
      time.advance(BUSY_RETRY_MS);
      await settled(1);
    });

    it("samples after the operations the bus reports ending, once per operation, with what each gave back", async () => {
      const history = sampler();
      history.listen();
      history.listen();
      const progress = (changed: number, bytes: number) => ({ scannedRows: 10, eligibleMessages: 5, changedMessages: changed, payloadBytes: bytes, fraction: null });
      bus.publish({ type: "operation", operationId: "op-run", kind: "cleanup", state: "running", progress: progress(3, 300) });
      bus.publish({ type: "operation", operationId: "op-an", kind: "analysis", state: "succeeded", progress: progress(0, 900) });
      bus.publish({ type: "operation", operationId: "op-fail", kind: "cleanup", state: "failed", progress: progress(0, 0) });
      bus.publish({ type: "operation", operationId: "op-1", kind: "cleanup", state: "succeeded", progress: progress(3, 12_345) });
      bus.publish({ type: "operation", operationId: "op-1", kind: "cleanup", state: "succeeded", progress: progress(3, 12_345) });
      bus.publish({ type: "operation", operationId: "op-2", kind: "checkpoint_cleanup", state: "partial", progress: progress(2, 777) });
      bus.publish({ type: "operation", operationId: "op-3", kind: "payload_restore", state: "succeeded", progress: progress(4, 5000) });
      await until(async () => (await count()) === 3, "three operation samples");
      const direct = await history.recordAfter({ trigger: "vacuum", operationId: "v-1", reclaimedBytes: 4096 });
      expect(direct?.sampleId).toEqual(expect.any(Number));
      expect((await history.recordAfter({ trigger: "vacuum", operationId: "v-1", reclaimedBytes: 4096 }))?.sampleId).toBeNull();
      const restore = await history.recordAfter({ trigger: "restore", operationId: "r-1", reclaimedBytes: 99 });
      expect(restore?.sampleId).toEqual(expect.any(Number));
      expect((await rows()).map((row) => [row.trigger, row.operationId, row.reclaimedBytes])).toEqual([
        ["compaction", "op-1", 12_345],
        ["checkpoint_cleanup", "op-2", 777],
        // A restore adds bytes back: nothing was reclaimed.
        ["payload_restore", "op-3", null],
        ["vacuum", "v-1", 4096],
        ["restore", "r-1", null],
      ]);
      await history.stop();
      bus.publish({ type: "operation", operationId: "op-9", kind: "cleanup", state: "succeeded", progress: progress(1, 1) });
      expect(await history.recordAfter({ trigger: "vacuum", operationId: "v-2" })).toBeNull();
      expect(await count()).toBe(5);
    });

    it("samples after a thread expiry or checkpoint cleanup announces its end, with the bytes it removed", async () => {
      const history = sampler();
      history.listen();
      bus.publish({ type: "maintenance_finished", operationId: "exp-0", kind: "thread_expiry", trigger: "scheduled", state: "failed", removedRows: 0, removedBytes: 0 });
      bus.publish({ type: "maintenance_finished", operationId: "exp-1", kind: "thread_expiry", trigger: "scheduled", state: "succeeded", removedRows: 40, removedBytes: 9000 });
      bus.publish({ type: "maintenance_finished", operationId: "cc-1", kind: "checkpoint_cleanup", trigger: "manual", state: "partial", removedRows: 3, removedBytes: 300 });
      // The same cleanup's operation event as well: one sample.
      bus.publish({ type: "operation", operationId: "cc-1", kind: "checkpoint_cleanup", state: "partial", progress: { scannedRows: 1, eligibleMessages: 3, changedMessages: 3, payloadBytes: 300, fraction: null } });
      await until(async () => (await count()) === 2, "two samples");
      await history.recordAfter({ trigger: "vacuum", operationId: "after" });
      expect((await rows()).map((row) => [row.trigger, row.operationId, row.reclaimedBytes])).toEqual([
        ["thread_expiry", "exp-1", 9000],
        ["checkpoint_cleanup", "cc-1", 300],
        ["vacuum", "after", null],
      ]);
    });

    it(`prunes samples older than ${STORAGE_HISTORY_RETENTION_DAYS} days with each new sample`, async () => {
      const insert = (atMs: number, key: string) =>
        rt.stores.history.insertSample(
          { atMs, sampleKey: key, trigger: "daily", operationId: null, method: "dbstat", totalBytes: 10, usedBytes: 8, freeBytes: 2, messagesBytes: 4, checkpointsBytes: 2, otherBytes: 2, reclaimedBytes: null, diskFreeBytes: null, tables: "[]" },
          { pruneBeforeMs: 0, maxRows: 10_000 },
        );
      const now = time.clock.now();
      await insert(now - 401 * DAY, "old-401");
      await insert(now - 400 * DAY - 1, "old-400-and-a-bit");
      await insert(now - 399 * DAY, "kept-399");
      await insert(now - DAY, "kept-1");
      expect(await count()).toBe(4);
      await sampler().recordDaily();
      const kept = (await rt.stores.history.listSince({ fromMs: 0 })).map((row) => row.sampleKey);
      expect(kept).toEqual(["kept-399", "kept-1", dailyKey(now)]);
    });

    it("keeps at most maxRows samples, dropping the oldest", async () => {
      for (let i = 0; i < 5; i++) {
        await rt.stores.history.insertSample(
          { atMs: START + i, sampleKey: `k${i}`, trigger: "daily", operationId: null, method: "dbstat", totalBytes: 1, usedBytes: 1, freeBytes: 0, messagesBytes: 0, checkpointsBytes: 0, otherBytes: 1, reclaimedBytes: null, diskFreeBytes: null, tables: "[]" },
          { pruneBeforeMs: 0, maxRows: 3 },
        );
      }
      expect((await rt.stores.history.listSince({ fromMs: 0 })).map((row) => row.sampleKey)).toEqual(["k2", "k3", "k4"]);
    });
  });
}
