import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as runsGet, POST as runsPost } from "@/app/api/v1/threads/[id]/runs/route";
import { POST as createPost } from "@/app/api/v1/threads/route";
import { runHistoryResponse } from "@/lib/checkpoints/api";
import { loadThreadGraph } from "@/server/checkpoints/cleanup/thread-graph";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { apiRequest, AS_ADMIN, AS_VIEWER, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";

let env: EngineRouteTestEnv;

// The same suite on every engine (PostgreSQL with TEST_POSTGRES_URL).
for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
describe.skipIf(skip)(`run history API [${engine}]`, () => {
beforeEach(async () => {
  delete process.env.CHECKPOINT_CHANNEL_MODE;
  env = await setUpEngineRouteTestEnv(engine, "run-history-");
});
afterEach(() => env.dispose());

const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

it("[CRC-13] [CRC-15] over HTTP, admission reclaims each earlier leaf and GET /threads/{id}/runs answers every run from the runs recorded beside the checkpoints, and reading never writes", async () => {
  const created = (await (await createPost(apiRequest("POST", "/api/v1/threads", AS_ADMIN, {}))).json()) as { threadId: string };
  const id = created.threadId;
  const runIds: string[] = [];
  for (const content of ["one", "two", "three"]) {
    const res = await runsPost(apiRequest("POST", `/api/v1/threads/${id}/runs`, AS_ADMIN, { input: { content } }), ctx(id));
    runIds.push(((await res.json()) as { runId: string }).runId);
  }
  // The thread service wires admission cleanup: only the newest duration leaf is left.
  const durationLeaves = [...(await loadThreadGraph(env.rt.stores.checkpoints, id)).nodes.values()].filter((n) => n.durationOnly);
  expect(durationLeaves).toHaveLength(1);
  const rows = async () => Number((await env.sql.all<{ n: number }>("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?", [id]))[0]!.n);
  const before = await rows();
  const res = await runsGet(apiRequest("GET", `/api/v1/threads/${id}/runs`, AS_VIEWER), ctx(id));
  expect(res.status).toBe(200);
  const body = runHistoryResponse.parse(await res.json());
  expect(body.source).toBe("runs");
  // In run order on both engines.
  expect(body.runs.map((r) => r.runId)).toEqual(runIds);
  expect(body.runs.every((r) => r.messageIds.length >= 4)).toBe(true);
  await runsGet(apiRequest("GET", `/api/v1/threads/${id}/runs`, AS_VIEWER), ctx(id));
  expect(await rows()).toBe(before);
  expect((await runsGet(apiRequest("GET", "/api/v1/threads/nope/runs", AS_VIEWER), ctx("nope"))).status).toBe(404);
  expect((await runsGet(apiRequest("GET", `/api/v1/threads/${id}/runs`, null), ctx(id))).status).toBe(401);
});
});
}
