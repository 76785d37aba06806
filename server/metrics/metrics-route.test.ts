import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/v1/metrics/route";
import { armPolicy, countMarkedRows, NOW_MS, seedOldTask } from "@/server/compaction/test-support";
import { AS_ADMIN, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { createRuntime } from "@/server/runtime";
import { parseExposition, sampleValue, type Family } from "./exposition-test-support";
import { bearerMatches } from "./bearer";
import { safeLabel } from "./labels";

const TOKEN = "metrics-token-0123456789";
const P = "workspace_retention_";
const clock = { now: () => NOW_MS };
let env: RouteTestEnv | null = null;

afterEach(async () => {
  await env?.dispose();
  env = null;
});

const scrape = (headers: Record<string, string> = {}, who: typeof AS_ADMIN | null = null) =>
  GET(apiRequest("GET", "/api/v1/metrics", who, undefined, headers));
const withToken = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

/** Runs one cleanup pass over `tasks` old tasks of three shell messages each. */
async function compactOldTasks(tasks: number): Promise<void> {
  const rt = env!.rt;
  for (let i = 0; i < tasks; i += 1) seedOldTask(rt.handle.sqlite, `task-old-${i}`, 3);
  const revision = await armPolicy(rt.handle.sqlite);
  await rt.compaction.requestRun(revision);
  await rt.compaction.idle();
}

function removedBytes(rt: RouteTestEnv["rt"]): number {
  return rt.handle.sqlite.prepare("select coalesce(sum(json_extract(metadata, '$.payload_retention.removed_bytes')), 0) from messages").pluck().get() as number;
}

function everyLabelValue(families: Map<string, Family>): string[] {
  // `le` is a histogram's numeric bucket bound, not one of ours.
  return [...families.values()].flatMap((f) => f.samples.flatMap((s) => Object.entries(s.labels).filter(([k]) => k !== "le").map(([, v]) => v)));
}

describe("GET /api/v1/metrics", () => {
  it("is off without METRICS_TOKEN: 404 with the standard error body, even with a token or a session", async () => {
    env = await setUpRouteTestEnv("metrics-off-", { clock });
    for (const res of [await scrape(), await scrape(withToken()), await scrape({}, AS_ADMIN)]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
      expect(res.headers.get("cache-control")).toMatch(/(^|,)\s*no-store\s*(,|$)/);
    }
  });

  it("answers 401 without the bearer token, with a wrong one and to a signed-in admin's cookie", async () => {
    env = await setUpRouteTestEnv("metrics-401-", { clock, env: { METRICS_TOKEN: TOKEN } });
    const refusals = [
      await scrape(),
      await scrape(withToken("wrong-token")),
      await scrape(withToken(`${TOKEN}x`)),
      await scrape({ authorization: `Basic ${TOKEN}` }),
      await scrape({ authorization: "Bearer " }),
      await scrape({}, AS_ADMIN),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { code: "unauthenticated", message: expect.any(String) } });
      expect(res.headers.get("cache-control")).toMatch(/(^|,)\s*no-store\s*(,|$)/);
    }
  });

  it("answers 200 with the bearer token: Prometheus text of every operator metric, uncached", async () => {
    env = await setUpRouteTestEnv("metrics-200-", { clock, env: { METRICS_TOKEN: TOKEN } });
    const res = await scrape(withToken());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const families = parseExposition(await res.text());
    const expected: Record<string, string> = {
      database_size_bytes: "gauge",
      database_free_pages: "gauge",
      database_page_size_bytes: "gauge",
      messages_compacted_total: "counter",
      payload_bytes_reclaimed_total: "counter",
      compaction_pass_duration_seconds: "histogram",
      compaction_batch_failures_total: "counter",
      compaction_skipped_total: "counter",
      checkpoint_rows: "gauge",
      checkpoint_bytes: "gauge",
      compaction_worker_state: "gauge",
      compaction_last_success_timestamp_seconds: "gauge",
      compaction_last_pass_messages: "gauge",
      compaction_last_pass_bytes: "gauge",
    };
    for (const [name, type] of Object.entries(expected)) expect(families.get(`${P}${name}`)?.type, name).toBe(type);
    expect(sampleValue(families, `${P}database_size_bytes`)).toBeGreaterThan(0);
    expect(sampleValue(families, `${P}checkpoint_rows`, { table: "checkpoints", mode: "full" })).toBe(0);
    expect(sampleValue(families, `${P}compaction_worker_state`, { state: "idle" })).toBe(1);
    expect(sampleValue(families, `${P}compaction_worker_state`, { state: "running" })).toBe(0);
    expect(sampleValue(families, `${P}compaction_last_success_timestamp_seconds`)).toBe(0);
  });

  it("counts an ended cleanup pass, and no label value is an id, a title or a path", async () => {
    env = await setUpRouteTestEnv("metrics-pass-", { clock, env: { METRICS_TOKEN: TOKEN } });
    await compactOldTasks(2);
    const sqlite = env.rt.handle.sqlite;
    const marked = countMarkedRows(sqlite);
    expect(marked).toBe(6);
    const families = parseExposition(await (await scrape(withToken())).text());
    expect(sampleValue(families, `${P}messages_compacted_total`)).toBe(marked);
    expect(removedBytes(env.rt)).toBeGreaterThan(0);
    expect(sampleValue(families, `${P}payload_bytes_reclaimed_total`)).toBe(removedBytes(env.rt));
    expect(sampleValue(families, `${P}compaction_pass_duration_seconds_count`)).toBe(1);
    expect(sampleValue(families, `${P}compaction_last_pass_messages`)).toBe(marked);
    expect(sampleValue(families, `${P}compaction_last_success_timestamp_seconds`)).toBe(NOW_MS / 1000);

    const ids = [
      ...(sqlite.prepare("select id from tasks union all select id from task_sessions union all select id from turns union all select id from messages union all select id from users").pluck().all() as string[]),
      ...(sqlite.prepare("select title from tasks").pluck().all() as string[]),
      JSON.parse(sqlite.prepare("select value from settings where key = 'tool_payload_retention'").pluck().get() as string).runtime.latestRun.id,
    ];
    const values = everyLabelValue(families);
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) {
      expect(value).toMatch(/^[a-z][a-z_]*$/);
      expect(ids).not.toContain(value);
      expect(value).not.toContain(path.sep);
    }
  });

  it("[TPR-OBS-01] counts rows with hostile stored values by their skip reason: a BLOB is not_text, a refused rewrite write_refused", async () => {
    env = await setUpRouteTestEnv("metrics-hostile-", { clock, env: { METRICS_TOKEN: TOKEN } });
    const sqlite = env.rt.handle.sqlite;
    for (let i = 0; i < 2; i += 1) seedOldTask(sqlite, `task-old-${i}`, 3);
    // Another writer's doing: a value stored as a BLOB, a trigger that refuses one rewrite.
    sqlite.prepare("update messages set metadata = cast(metadata as blob) where id = 'task-old-0-m0'").run();
    sqlite.exec("create trigger refuse_one before update of metadata on messages when old.id = 'task-old-1-m1' begin select raise(abort, 'kept'); end");
    await env.rt.compaction.requestRun(await armPolicy(sqlite));
    await env.rt.compaction.idle();
    expect(countMarkedRows(sqlite)).toBe(4);
    const families = parseExposition(await (await scrape(withToken())).text());
    expect(sampleValue(families, `${P}compaction_skipped_total`, { reason: "not_text" })).toBe(1);
    expect(sampleValue(families, `${P}compaction_skipped_total`, { reason: "write_refused" })).toBe(1);
    expect(sampleValue(families, `${P}messages_compacted_total`)).toBe(4);
  });

  it("reads its gauges from the durable records: a new runtime on the same file shows the last pass", async () => {
    env = await setUpRouteTestEnv("metrics-restart-", { clock, env: { METRICS_TOKEN: TOKEN } });
    await compactOldTasks(1);
    const file = env.rt.handle.file;
    const second = createRuntime({ env: { DATABASE_URL: `file:${file}`, METRICS_TOKEN: TOKEN }, clock, log: createLogger({ level: "silent" }) });
    try {
      const families = parseExposition(await second.metrics.render());
      expect(sampleValue(families, `${P}compaction_last_pass_messages`)).toBe(3);
      expect(sampleValue(families, `${P}compaction_last_pass_bytes`)).toBe(removedBytes(env.rt));
      expect(sampleValue(families, `${P}compaction_last_success_timestamp_seconds`)).toBe(NOW_MS / 1000);
      expect(sampleValue(families, `${P}compaction_worker_state`, { state: "stopped" })).toBe(1);
      expect(sampleValue(families, `${P}database_size_bytes`)).toBeGreaterThan(0);
    } finally {
      await second.stop();
    }
  });
});

describe("metric helpers", () => {
  it("compares bearer tokens exactly and rejects empty or malformed headers", async () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    for (const header of [null, "", "Bearer", `Bearer ${TOKEN.slice(1)}`, `Token ${TOKEN}`, `Bearer ${TOKEN} extra`]) {
      expect(bearerMatches(header, TOKEN)).toBe(false);
    }
  });

  it("folds any label value that is not a closed-vocabulary word into other", async () => {
    expect(safeLabel("policy_changed")).toBe("policy_changed");
    for (const value of ["task-old-1", "0b5c6f2e-8f1a-4c39-9c1e-2a1e0f3b9d77", "/data/workspace.db", "Fix the build", "", null, "x".repeat(65)]) {
      expect(safeLabel(value)).toBe("other");
    }
  });
});
