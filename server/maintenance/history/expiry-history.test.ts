// Thread expiry, then the storage history: the pass's end leaves a sample
// after it, with the bytes the pass removed and less space in the
// checkpoint tables than the sample before (#31's black-box "the history
// shows the drop"), on both engines.
import { afterEach, describe, expect, it } from "vitest";
import { getExpiryStatus, putExpiryPolicy } from "@/server/checkpoints/schedule/service";
import { DAY_MS, scheduleTestEnv, waitFor, writeThread, type ScheduleTestEnv } from "@/server/checkpoints/schedule/schedule-test-support";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { readStorageHistory } from "./read";

let env: ScheduleTestEnv | null = null;
afterEach(async () => {
  await env?.rt.dispose();
  env = null;
});

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`storage history after thread expiry [${engine}]`, () => {
    it("the expiry pass leaves a sample with what it removed (and, on SQLite, less checkpoint space than before)", { timeout: 180_000 }, async () => {
      env = await scheduleTestEnv(engine, { start: true });
      const rt = env.rt;
      for (let i = 0; i < 4; i++) await writeThread(rt, 12);
      env.time.clock.advance(100 * DAY_MS);
      await writeThread(rt, 1);
      await rt.storageHistory.recordDaily();
      const history = () => readStorageHistory({ store: rt.stores.history, clock: rt.clock, engine, query: { days: 400 } });
      const before = (await history()).samples.at(-1)!;
      expect(before.trigger).toBe("daily");

      const status = await getExpiryStatus(rt);
      await putExpiryPolicy(rt, { policy: { enabled: true, age: { value: 90, unit: "days" } }, expectedRevision: status.policy.revision, preparation: "skip" }, "u-admin", { outsideWindow: "run" });
      const run = await waitFor(async () => {
        const current = await getExpiryStatus(rt);
        return current.latestRun && current.activeOperation === null ? current.latestRun : null;
      }, { what: "the expiry pass" });
      expect(run).toMatchObject({ state: "succeeded", threads: 4 });

      const after = await waitFor(async () => (await history()).samples.find((s) => s.trigger === "thread_expiry"), { what: "the sample after the expiry pass" });
      expect(after.operationId).toBe(run.id);
      expect(after.reclaimedBytes).toBe(run.bytes);
      expect(after.atMs).toBeGreaterThanOrEqual(before.atMs);
      // SQLite frees the pages the deleted rows emptied; PostgreSQL keeps them in the tables for
      // reuse (a plain VACUUM marks them, it does not give them back), so there its history
      // shows what the pass removed while the sizes stop growing instead of dropping.
      if (engine === "sqlite") {
        expect(after.areas.checkpoints).toBeLessThan(before.areas.checkpoints);
        expect(after.freeBytes).toBeGreaterThan(before.freeBytes);
      } else expect(after.reclaimedBytes).toBeGreaterThan(0);
    });
  });
}
