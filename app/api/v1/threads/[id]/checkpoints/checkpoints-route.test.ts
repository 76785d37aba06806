import { afterEach, beforeEach, expect, it } from "vitest";
import { GET as checkpointsGet } from "@/app/api/v1/threads/[id]/checkpoints/route";
import { POST as runsPost } from "@/app/api/v1/threads/[id]/runs/route";
import { POST as createPost } from "@/app/api/v1/threads/route";
import { threadCheckpointsResponse } from "@/lib/checkpoints/api";
import { apiRequest, AS_ADMIN, AS_VIEWER, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";

let env: RouteTestEnv;
beforeEach(async () => {
  delete process.env.CHECKPOINT_CHANNEL_MODE;
  env = await setUpRouteTestEnv("thread-checkpoints-");
});
afterEach(() => env.dispose());

const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
const url = (id: string) => `/api/v1/threads/${id}/checkpoints`;

async function threadWithRuns(contents: string[]): Promise<string> {
  const created = (await (await createPost(apiRequest("POST", "/api/v1/threads", AS_ADMIN, {}))).json()) as { threadId: string };
  for (const content of contents) {
    const res = await runsPost(apiRequest("POST", `/api/v1/threads/${created.threadId}/runs`, AS_ADMIN, { input: { content } }), ctx(created.threadId));
    expect(res.status).toBe(200);
  }
  return created.threadId;
}

it("GET /threads/{id}/checkpoints: anonymous 401, viewer 200 with turns and verdicts, unknown thread 404, and reading writes nothing", async () => {
  const id = await threadWithRuns(["private question one", "private question two"]);
  expect((await checkpointsGet(apiRequest("GET", url(id), null), ctx(id))).status).toBe(401);

  const rows = () => (env.rt.handle.sqlite.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?").get(id) as { n: number }).n;
  const before = rows();
  const res = await checkpointsGet(apiRequest("GET", url(id), AS_VIEWER), ctx(id));
  expect(res.status).toBe(200);
  const raw = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(raw).sort()).toEqual(["bytes", "checkpoints", "nextRunBytes", "nextRunCheckpoints", "reclaimableBytes", "reclaimableCheckpoints", "threadId", "turns"]);
  const body = threadCheckpointsResponse.parse(raw);
  expect(body.threadId).toBe(id);
  expect(body.checkpoints).toBe(before);
  expect(body.turns).toHaveLength(2);
  // With admission on, only the newest run's duration leaf is left, and the next run reclaims it.
  const leaves = body.turns.flatMap((t) => t.checkpoints).filter((c) => c.kind === "duration");
  expect(leaves).toHaveLength(1);
  expect(leaves[0]).toMatchObject({ position: "head", verdict: { status: "reclaimable", form: "next_run" } });
  // Ids, kinds and sizes only: no message text crosses this route.
  expect(JSON.stringify(raw)).not.toContain("private question");
  expect(rows()).toBe(before);

  const missing = await checkpointsGet(apiRequest("GET", url("no-such-thread"), AS_VIEWER), ctx("no-such-thread"));
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
});
