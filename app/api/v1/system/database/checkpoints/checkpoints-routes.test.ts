import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointStorageStatus, CHECKPOINT_RETENTION_SETTINGS_KEY } from "@/lib/checkpoints/api";
import type { SystemEvent } from "@/lib/events/api";
import { startRun } from "@/server/checkpoints/runs";
import { DAY_MS } from "@/server/checkpoints/handles";
import { threadService } from "@/server/checkpoints/service";
import { createThread, regenerate } from "@/server/checkpoints/threads";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { apiRequest, AS_ADMIN, AS_VIEWER, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { GET } from "./route";
import { POST as analyzePost } from "./analyze/route";
import { POST as runPost } from "./run/route";

const URL = "/api/v1/system/database/checkpoints";
let env: EngineRouteTestEnv;

// The same suite on every engine (PostgreSQL with TEST_POSTGRES_URL).
for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
describe.skipIf(skip)(`checkpoint maintenance API [${engine}]`, () => {
beforeEach(async () => {
  delete process.env.CHECKPOINT_CHANNEL_MODE;
  env = await setUpEngineRouteTestEnv(engine, "ckpt-routes-");
});
afterEach(async () => {
  await env.rt.checkpoints.jobs.queue.idle();
  await env.dispose();
});

async function status(who: typeof AS_ADMIN | typeof AS_VIEWER = AS_VIEWER) {
  const res = await GET(apiRequest("GET", URL, who));
  expect(res.status).toBe(200);
  return checkpointStorageStatus.parse(await res.json());
}

/** Two threads through the run API, one with a regenerated turn (a leaf sibling), written past the handles' time to live. */
async function seedThreads(): Promise<string[]> {
  const service = threadService(env.rt);
  const deps = { ...service, clock: { now: () => service.clock.now() - (env.rt.checkpoints.handleTtlDays + 1) * DAY_MS } };
  const ids: string[] = [];
  for (let t = 0; t < 2; t += 1) {
    const { threadId } = await createThread(deps);
    for (const q of ["one", "two"]) await startRun(deps, { threadId, content: q });
    ids.push(threadId);
  }
  const state = await deps.accessor.getState(ids[0]!);
  const reply = state!.values.messages.filter((m) => m.getType() === "ai").at(-1)!;
  await regenerate(deps, ids[0]!, String(reply.id));
  return ids;
}

  it("[CRC-12] GET: members read mode, frequency, rows and bytes per table and the largest threads (ids only); no session is 401", async () => {
    expect((await GET(apiRequest("GET", URL, null))).status).toBe(401);
    const empty = await status();
    expect(empty).toMatchObject({ supported: true, mode: "full", snapshotFrequency: 10, tables: { checkpoints: { rows: 0 }, writes: { rows: 0 } }, largestThreads: [], operation: null, lastResult: null });
    const ids = await seedThreads();
    const seeded = await status();
    const [rows] = await env.sql.all<{ n: number }>("SELECT count(*) AS n FROM checkpoints");
    expect(seeded.tables!.checkpoints.rows).toBe(Number(rows!.n));
    expect(seeded.tables!.checkpoints.bytes).toBeGreaterThan(0);
    expect(seeded.largestThreads.map((t) => t.threadId).sort()).toEqual([...ids].sort());
    expect(Object.keys(seeded.largestThreads[0]!).sort()).toEqual(["bytes", "checkpoints", "threadId", "writes"]);
  });

  it("[CRC-12] POST analyze and run: admins only, strict body, 202 + operationId, serialized, results stored before/after; analysis changes nothing", async () => {
    await seedThreads();
    expect((await analyzePost(apiRequest("POST", `${URL}/analyze`, AS_VIEWER, {}))).status).toBe(403);
    expect((await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, { force: true }))).status).toBe(400);
    const events: SystemEvent[] = [];
    const unsubscribe = env.rt.bus.subscribe((e) => events.push(e));
    const rowsBefore = (await status()).tables!;
    // The analysis waits while another maintenance operation holds the guard, so it is still active when the run arrives.
    const holder = await env.rt.guard.acquireExclusive({ owner: "test", kind: "backup" });
    const analyze = await analyzePost(apiRequest("POST", `${URL}/analyze`, AS_ADMIN, {}));
    expect(analyze.status).toBe(202);
    const accepted = (await analyze.json()) as { operationId: string; kind: string };
    expect(accepted.kind).toBe("analysis");
    // One at a time: a second request while one is queued is refused.
    const busy = await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, {}));
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe("operation_active");
    holder.release();
    await env.rt.checkpoints.jobs.queue.idle();
    const analyzed = await status();
    expect(analyzed.tables).toEqual(rowsBefore);
    expect(analyzed.lastResult).toMatchObject({ operationId: accepted.operationId, kind: "analysis", state: "succeeded" });
    expect(analyzed.lastResult!.after.checkpoints).toBeLessThan(analyzed.lastResult!.before.checkpoints);

    const run = await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, {}));
    expect(run.status).toBe(202);
    await env.rt.checkpoints.jobs.queue.idle();
    const done = await status(AS_ADMIN);
    expect(done.lastResult).toMatchObject({ kind: "cleanup", state: "succeeded", after: analyzed.lastResult!.after, before: analyzed.lastResult!.before });
    expect(done.tables!.checkpoints.rows).toBe(analyzed.lastResult!.after.checkpoints);
    expect(done.lastResult!.topThreads.length).toBeGreaterThan(0);
    unsubscribe();
    const kinds = events.flatMap((e) => (e.type === "operation" ? [`${e.kind}:${e.state}`] : []));
    expect(kinds).toEqual(expect.arrayContaining(["checkpoint_analysis:queued", "checkpoint_analysis:succeeded", "checkpoint_cleanup:running", "checkpoint_cleanup:succeeded"]));
  });

  it("[#30] Clean up readiness: no analysis, ready on a current one, changed after a run, after_cleanup; a run naming an outdated analysis is 409 analysis_outdated and changes nothing", async () => {
    const [threadId] = await seedThreads();
    expect((await status()).cleanup).toEqual({ reason: "no_analysis", analysisId: null });
    const analyze = await analyzePost(apiRequest("POST", `${URL}/analyze`, AS_ADMIN, {}));
    const { operationId } = (await analyze.json()) as { operationId: string };
    await env.rt.checkpoints.jobs.queue.idle();
    const analysed = await status();
    expect(analysed.cleanup).toEqual({ reason: "ready", analysisId: operationId });
    expect(analysed.lastResult!.tablesAtStart).toEqual(analysed.tables);
    expect(analysed.lastResult!.changedDuringScan).toBe(false);

    // A new run writes checkpoints: the analysis no longer describes the state.
    await startRun(threadService(env.rt), { threadId: threadId!, content: "three" });
    const changed = await status();
    expect(changed.cleanup).toEqual({ reason: "changed", analysisId: null });
    const refused = await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, { analysisId: operationId }));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("analysis_outdated");
    await env.rt.checkpoints.jobs.queue.idle();
    expect(await status()).toEqual(changed);

    // Analyze again, clean up naming it: accepted, and afterwards a new analysis is needed.
    const again = (await (await analyzePost(apiRequest("POST", `${URL}/analyze`, AS_ADMIN, {}))).json()) as { operationId: string };
    await env.rt.checkpoints.jobs.queue.idle();
    expect((await status()).cleanup).toEqual({ reason: "ready", analysisId: again.operationId });
    expect((await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, { analysisId: "someone-else" }))).status).toBe(409);
    const run = await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, { analysisId: again.operationId }));
    expect(run.status).toBe(202);
    await env.rt.checkpoints.jobs.queue.idle();
    const cleaned = await status();
    expect(cleaned.lastResult!.kind).toBe("cleanup");
    expect(cleaned.cleanup).toEqual({ reason: "after_cleanup", analysisId: null });
    // The analysis found something; a fresh one after the cleanup finds nothing to reclaim.
    await analyzePost(apiRequest("POST", `${URL}/analyze`, AS_ADMIN, {}));
    await env.rt.checkpoints.jobs.queue.idle();
    expect((await status()).cleanup!.reason).toBe("nothing_to_reclaim");
    // An empty body still runs, as the CLI and scripts send it (the contract).
    expect((await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, {}))).status).toBe(202);
  });

  it("[CRC-12] a malformed stored result is reported, not trusted, and the next operation replaces it", async () => {
    await env.sql.run("INSERT INTO settings (key, value, updated_at_ms) VALUES (?, ?, 0)", [CHECKPOINT_RETENTION_SETTINGS_KEY, '{"version":2}']);
    expect(await status()).toMatchObject({ lastResult: null, lastResultMalformed: true });
    expect((await analyzePost(apiRequest("POST", `${URL}/analyze`, AS_ADMIN, {}))).status).toBe(202);
    await env.rt.checkpoints.jobs.queue.idle();
    expect(await status()).toMatchObject({ lastResultMalformed: false, lastResult: { kind: "analysis", state: "succeeded" } });
  });

  it("answers 'unsupported' for a postgres DATABASE_URL and 501 on mutations", async () => {
    env.useUnsupportedEngine("postgres://example/db");
    const res = await GET(apiRequest("GET", URL, AS_VIEWER));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { supported: boolean }).supported).toBe(false);
    expect((await runPost(apiRequest("POST", `${URL}/run`, AS_ADMIN, {}))).status).toBe(501);
  });
});
}
