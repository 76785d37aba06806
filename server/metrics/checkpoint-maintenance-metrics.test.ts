// The scheduled checkpoint maintenance metrics over GET /api/v1/metrics: the
// policy gauges, the latest run and the expired-thread count read from the
// records, the counters fed by the operations' completion events.
import { afterEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/v1/metrics/route";
import { apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { manualTime } from "@/server/manual-time-test-support";
import { DAY_MS, middayToday, waitFor, writeThread } from "@/server/checkpoints/schedule/schedule-test-support";
import { getCleanupScheduleStatus, getExpiryStatus, putCleanupSchedule, putExpiryPolicy } from "@/server/checkpoints/schedule/service";
import { parseExposition, sampleValue } from "./exposition-test-support";

const TOKEN = "metrics-token-0123456789";
const P = "workspace_retention_";
let env: RouteTestEnv | null = null;
afterEach(async () => {
  await env?.dispose();
  env = null;
});

const scrape = async () => parseExposition(await (await GET(apiRequest("GET", "/api/v1/metrics", null, undefined, { authorization: `Bearer ${TOKEN}` }))).text());

describe("checkpoint maintenance metrics", () => {
  it("show both policies, the latest thread expiry pass, the expired threads and the runs ended since start", { timeout: 120_000 }, async () => {
    const time = manualTime(middayToday());
    env = await setUpRouteTestEnv("metrics-expiry-", { clock: time.clock, timers: time.timers, env: { METRICS_TOKEN: TOKEN } });
    let families = await scrape();
    expect(sampleValue(families, `${P}checkpoint_maintenance_enabled`, { kind: "thread_expiry" })).toBe(0);
    expect(sampleValue(families, `${P}expired_threads`)).toBe(0);
    await writeThread(env.rt, 2);
    await writeThread(env.rt, 1);
    time.clock.advance(100 * DAY_MS);
    await putCleanupSchedule(env.rt, { policy: { enabled: true }, expectedRevision: 0 }, "u-admin");
    await putExpiryPolicy(env.rt, { policy: { enabled: true, age: { value: 30, unit: "days" } }, expectedRevision: 0, preparation: "skip" }, "u-admin", { outsideWindow: "run" });
    const run = await waitFor(async () => (await getExpiryStatus(env!.rt)).latestRun);
    expect(run).toMatchObject({ state: "succeeded", threads: 2 });
    families = await scrape();
    expect(sampleValue(families, `${P}checkpoint_maintenance_enabled`, { kind: "thread_expiry" })).toBe(1);
    expect(sampleValue(families, `${P}checkpoint_maintenance_enabled`, { kind: "checkpoint_cleanup" })).toBe(1);
    expect(sampleValue(families, `${P}expired_threads`)).toBe(2);
    expect(sampleValue(families, `${P}threads_expired_total`)).toBe(2);
    expect(sampleValue(families, `${P}checkpoint_maintenance_runs_total`, { kind: "thread_expiry", trigger: "manual", state: "succeeded" })).toBe(1);
    expect(sampleValue(families, `${P}checkpoint_maintenance_removed_bytes_total`, { kind: "thread_expiry" })).toBe(run.bytes);
    expect(sampleValue(families, `${P}checkpoint_maintenance_last_run_threads`, { kind: "thread_expiry" })).toBe(2);
    expect(sampleValue(families, `${P}checkpoint_maintenance_last_success_timestamp_seconds`, { kind: "thread_expiry" })).toBe(Date.parse(run.finishedAt!) / 1000);

    // The daily cleanup's first run, a minute after it was enabled (both threads are gone: nothing to reclaim).
    time.advance(60_001);
    const cleanup = await waitFor(async () => (await getCleanupScheduleStatus(env!.rt)).latestRun, { what: "the scheduled cleanup" });
    families = await scrape();
    expect(sampleValue(families, `${P}checkpoint_maintenance_runs_total`, { kind: "checkpoint_cleanup", trigger: "scheduled", state: "succeeded" })).toBe(1);
    expect(sampleValue(families, `${P}checkpoint_maintenance_last_success_timestamp_seconds`, { kind: "checkpoint_cleanup" })).toBe(Date.parse(cleanup.finishedAt!) / 1000);
    expect(sampleValue(families, `${P}checkpoint_maintenance_last_run_threads`, { kind: "checkpoint_cleanup" })).toBe(0);
  });

  it("thread expiry counts as on only once armed: enabled with a backup that failed is 0", { timeout: 120_000 }, async () => {
    env = await setUpRouteTestEnv("metrics-expiry-failed-", {
      env: { METRICS_TOKEN: TOKEN },
      schedule: {
        createBackupFn: async () => {
          throw new Error("disk full");
        },
      },
    });
    await putExpiryPolicy(env.rt, { policy: { enabled: true, age: { value: 30, unit: "days" } }, expectedRevision: 0, preparation: "backup" }, "u-admin");
    const status = await waitFor(async () => {
      const s = await getExpiryStatus(env!.rt);
      return s.preparation.state === "failed" ? s : null;
    }, { what: "the failed preparation" });
    expect(status).toMatchObject({ policy: { enabled: true }, armed: false });
    expect(sampleValue(await scrape(), `${P}checkpoint_maintenance_enabled`, { kind: "thread_expiry" })).toBe(0);
  });
});
