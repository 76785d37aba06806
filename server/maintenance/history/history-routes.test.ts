// GET /api/v1/system/database/history through the real route: members read,
// the query is zod-validated with the standard error body, stored rows that
// fail validation are left out and counted; black-box, a compaction pass and
// a VACUUM each leave a sample after them showing the space they gave back,
// and a restore keeps the history (it describes the install, not the data).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as historyGet } from "@/app/api/v1/system/database/history/route";
import { POST as vacuumPost } from "@/app/api/v1/system/database/vacuum/route";
import { POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { POST as backupRestore } from "@/app/api/v1/system/database/backups/[name]/restore/route";
import { historyResponseSchema, type StorageSample, type SupportedHistory } from "@/lib/database/history-api";
import { manualClock } from "@/server/clock";
import { armPolicy, NOW_MS, seedOldTask } from "@/server/compaction/test-support";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";

const DAY = 24 * 60 * 60 * 1000;
const URL_BASE = "/api/v1/system/database/history";

async function getHistory(query = "", who: typeof AS_ADMIN | typeof AS_VIEWER | null = AS_VIEWER): Promise<Response> {
  return historyGet(apiRequest("GET", `${URL_BASE}${query}`, who));
}

async function history(query = ""): Promise<SupportedHistory> {
  const response = await getHistory(query);
  expect(response.status).toBe(200);
  const body = historyResponseSchema.parse(await response.json());
  if (body.capability !== "supported") throw new Error("unsupported");
  return body;
}

/** Waits for the sample an operation's end leads to (taken off the request), never for a set time. */
async function sampleAfter(trigger: StorageSample["trigger"]): Promise<StorageSample> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = (await history()).samples.find((s) => s.trigger === trigger);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${trigger} sample`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`storage history route [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    const clock = manualClock(NOW_MS);
    beforeEach(async () => {
      clock.set(NOW_MS);
      env = await setUpEngineRouteTestEnv(engine, "history-routes-", { clock });
    });
    afterEach(() => env.dispose());

    it("members read it; no session is 401; an empty history says so", async () => {
      expect((await getHistory("", null)).status).toBe(401);
      const body = await history();
      expect(body).toMatchObject({ capability: "supported", engine, retentionDays: 400, days: 120, samples: [], latest: null, malformedSamples: 0, growth: { state: "insufficient_data" } });
      expect(body.forecast).toBeUndefined();
      expect((await getHistory("", AS_ADMIN)).status).toBe(200);
    });

    it("refuses a bad query with 400 invalid_request and the standard error body", async () => {
      for (const query of ["?days=0", "?days=401", "?days=abc", "?days=1.5", "?detail=everything", "?targetBytes=-1", "?unknown=1", "?days=10&days=20"]) {
        const response = await getHistory(query);
        expect(response.status, query).toBe(400);
        const body = await response.json();
        expect(body, query).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
        expect(body.error.message, query).not.toMatch(/\n\s+at /);
      }
    });

    it("shows daily samples of the chosen days, the newest with its tables, and the forecast asked for", async () => {
      for (let day = 0; day < 10; day++) {
        await env.rt.storageHistory.recordDaily();
        clock.advance(DAY);
      }
      const body = await history("?days=5&targetBytes=1000000000000");
      expect(body.samples).toHaveLength(5);
      expect(body.samples.every((s) => s.tables === undefined)).toBe(true);
      expect(body.latest?.tables?.length).toBeGreaterThan(3);
      expect(body.latest?.method).toBe(engine === "postgres" ? "catalog" : "dbstat");
      expect(body.growth).toMatchObject({ state: "fit", samples: 10 });
      expect(body.forecast?.targetBytes).toBe(1e12);
      const detailed = await history("?days=400&detail=tables");
      expect(detailed.samples).toHaveLength(10);
      expect(detailed.samples.every((s) => (s.tables?.length ?? 0) > 0)).toBe(true);
    });

    it("leaves out, and counts, stored rows another writer broke (fail-closed)", async () => {
      await env.rt.storageHistory.recordDaily();
      clock.advance(DAY);
      await env.rt.storageHistory.recordDaily();
      await env.sql.run(`update storage_samples set tables = '{"not":"ours"}' where id = (select min(id) from storage_samples)`);
      await env.sql.run(
        `insert into storage_samples (at_ms, sample_key, trigger, method, total_bytes, used_bytes, free_bytes, messages_bytes, checkpoints_bytes, other_bytes, tables)
         values (?, 'x', 'sometimes', 'dbstat', 1, 1, 0, 0, 0, 1, '[]')`,
        [NOW_MS],
      );
      const body = await history();
      expect(body.samples).toHaveLength(1);
      expect(body.malformedSamples).toBe(2);
    });
  });
}

describe("storage history after maintenance [sqlite]", () => {
  let env: EngineRouteTestEnv;
  const clock = manualClock(NOW_MS);
  beforeEach(async () => {
    clock.set(NOW_MS);
    env = await setUpEngineRouteTestEnv("sqlite", "history-maint-", { clock });
  });
  afterEach(() => env.dispose());

  it("black-box: after a compaction pass and then a VACUUM, the history holds a sample after each with less space", async () => {
    const sqlite = env.rt.handle!.sqlite;
    for (let i = 0; i < 40; i++) seedOldTask(sqlite, `task-old-${i}`, 3, "x".repeat(20_000));
    await env.rt.storageHistory.recordDaily();
    const before = (await history()).samples.at(-1)!;
    expect(before.trigger).toBe("daily");
    expect(before.areas.messages).toBeGreaterThan(2_000_000);

    clock.advance(60_000);
    await env.rt.compaction.requestRun(await armPolicy(sqlite, { value: 1, unit: "weeks" }, clock.now()));
    await env.rt.compaction.idle();
    const compacted = await sampleAfter("compaction");
    expect(compacted.atMs).toBeGreaterThan(before.atMs);
    // The payloads left the messages b-tree: its pages are free now, the file is as big as before.
    expect(compacted.areas.messages).toBeLessThan(before.areas.messages - 1_500_000);
    expect(compacted.freeBytes).toBeGreaterThan(before.freeBytes + 1_500_000);
    expect(compacted.reclaimedBytes).toBeGreaterThan(2_000_000);

    clock.advance(60_000);
    const vacuum = await vacuumPost(apiRequest("POST", "/api/v1/system/database/vacuum", AS_ADMIN, {}));
    expect(vacuum.status).toBe(200);
    const { freedBytes } = await vacuum.json();
    const vacuumed = await sampleAfter("vacuum");
    expect(vacuumed.atMs).toBeGreaterThan(compacted.atMs);
    expect(vacuumed.totalBytes).toBeLessThan(compacted.totalBytes - 1_500_000);
    expect(vacuumed.freeBytes).toBe(0);
    expect(vacuumed.reclaimedBytes).toBe(freedBytes);
    // Oldest first.
    expect((await history()).samples.map((s) => s.trigger)).toEqual(["daily", "compaction", "vacuum"]);
  });

  it("a restore keeps the whole history and adds the restored database's sample", async () => {
    await env.rt.storageHistory.recordDaily();
    const created = await backupsCreate(apiRequest("POST", "/api/v1/system/database/backups", AS_ADMIN, {}));
    expect(created.status).toBe(201);
    const { name } = await created.json();
    clock.advance(DAY);
    await env.rt.storageHistory.recordDaily();
    const restored = await backupRestore(apiRequest("POST", "/x", AS_ADMIN, { confirm: name }), { params: Promise.resolve({ name }) });
    expect(restored.status).toBe(200);
    await sampleAfter("restore");
    // The sample taken after the backup survived it.
    expect((await history()).samples.map((s) => s.trigger)).toEqual(["daily", "daily", "restore"]);
  });
});
