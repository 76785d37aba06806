// The storage history as metrics: bytes by area and by table, rows by table,
// the newest sample's time and the fitted growth, read from the stored
// samples at scrape time; labels are fixed words or schema table names.
import { afterEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/v1/metrics/route";
import { manualClock } from "@/server/clock";
import { apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { parseExposition } from "./exposition-test-support";

const TOKEN = "metrics-token-0123456789";
const P = "workspace_retention_";
const START = Date.UTC(2026, 4, 1, 12);
let env: RouteTestEnv | null = null;

afterEach(async () => {
  await env?.dispose();
  env = null;
});

const scrape = async () => parseExposition(await (await GET(apiRequest("GET", "/api/v1/metrics", null, undefined, { authorization: `Bearer ${TOKEN}` }))).text());

describe("storage history metrics", () => {
  it("say there is nothing without samples, then follow the newest sample and the fit", async () => {
    const clock = manualClock(START);
    env = await setUpRouteTestEnv("history-metrics-", { clock, env: { METRICS_TOKEN: TOKEN } });
    const empty = await scrape();
    expect(empty.get(`${P}storage_area_bytes`)?.samples).toEqual([]);
    expect(empty.get(`${P}storage_last_sample_timestamp_seconds`)?.samples.map((s) => s.value)).toEqual([0]);
    expect(empty.get(`${P}storage_growth_fitted`)?.samples.map((s) => s.value)).toEqual([0]);
    expect(empty.get(`${P}storage_growth_bytes_per_day`)?.samples.map((s) => s.value)).toEqual([0]);

    for (let day = 0; day < 4; day++) {
      await env.rt.storageHistory.recordDaily();
      // Each day adds rows to the audit trail's neighbour: a table that grows.
      env.rt.handle.sqlite.prepare("insert into audit_events (at_ms, actor, kind, result, detail) select ?, 'cli', 'x', 'ok', hex(randomblob(4000)) from (select 1 union all select 2 union all select 3)").run(clock.now());
      clock.advance(24 * 60 * 60 * 1000);
    }
    await env.rt.storageHistory.recordDaily();
    const latest = (await env.rt.stores.history.latest())!;
    const families = await scrape();
    const areas = Object.fromEntries(families.get(`${P}storage_area_bytes`)!.samples.map((s) => [s.labels.area, s.value]));
    expect(areas).toEqual({ messages: latest.messagesBytes, checkpoints: latest.checkpointsBytes, other: latest.otherBytes, free: latest.freeBytes });
    const tableBytes = families.get(`${P}storage_table_bytes`)!.samples;
    const rows = families.get(`${P}storage_table_rows`)!.samples;
    expect(tableBytes.find((s) => s.labels.table === "messages")?.value).toBe(latest.messagesBytes);
    expect(rows.find((s) => s.labels.table === "audit_events")?.value).toBe(12);
    expect(families.get(`${P}storage_last_sample_timestamp_seconds`)!.samples[0]!.value).toBe(clock.now() / 1000);
    expect(families.get(`${P}storage_growth_fitted`)!.samples[0]!.value).toBe(1);
    expect(families.get(`${P}storage_growth_bytes_per_day`)!.samples[0]!.value).toBeGreaterThan(0);
  });
});
