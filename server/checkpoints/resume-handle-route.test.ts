// Resume handles over HTTP: the id a run returns stays resumable after five
// more runs, each admitted with cleanup (the thread service wires it), and
// the answers a resume brought back can be regenerated and branched from, in
// both modes.
import { afterEach, describe, expect, it } from "vitest";
import { POST as branchPost } from "@/app/api/v1/threads/[id]/branch/route";
import { POST as regeneratePost } from "@/app/api/v1/threads/[id]/regenerate/route";
import { POST as runsPost } from "@/app/api/v1/threads/[id]/runs/route";
import { GET as stateGet } from "@/app/api/v1/threads/[id]/state/route";
import { POST as createPost } from "@/app/api/v1/threads/route";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { apiRequest, AS_ADMIN, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";

let env: EngineRouteTestEnv | null = null;
afterEach(async () => {
  delete process.env.CHECKPOINT_CHANNEL_MODE;
  await env?.dispose();
  env = null;
});

const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
type RunBody = { runId: string; status: string; checkpointId: string | null };

// The same suite on every engine (PostgreSQL with TEST_POSTGRES_URL).
for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
describe.skipIf(skip).each(["full", "delta"] as const)(`resume handles over HTTP (%s mode) [${engine}]`, (mode) => {
  it("[CRC-01] run 1's checkpointId resumes after runs 2..6, and the resumed run continues run 1's conversation", async () => {
    // The thread service resolves the mode from the process environment.
    process.env.CHECKPOINT_CHANNEL_MODE = mode;
    env = await setUpEngineRouteTestEnv(engine, "resume-handle-");
    const id = ((await (await createPost(apiRequest("POST", "/api/v1/threads", AS_ADMIN, {}))).json()) as { threadId: string }).threadId;
    const run = async (content: string, checkpointId?: string) => {
      const res = await runsPost(apiRequest("POST", `/api/v1/threads/${id}/runs`, AS_ADMIN, { input: { content }, ...(checkpointId ? { checkpointId } : {}) }), ctx(id));
      return { status: res.status, body: (await res.json()) as RunBody };
    };
    const first = await run("question 1");
    expect(first.status).toBe(200);
    const handle = first.body.checkpointId!;
    const stateAt = async () => ((await (await stateGet(apiRequest("GET", `/api/v1/threads/${id}/state`, AS_ADMIN), ctx(id))).json()) as { values: { messages: Array<{ id: string; content: string }> } }).values.messages;
    const afterFirst = await stateAt();
    for (let n = 2; n <= 6; n += 1) expect((await run(`question ${n}`)).body.status).toBe("success");
    expect((await stateAt()).length).toBe(afterFirst.length * 6);
    const resumed = await run("again from run 1", handle);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("success");
    const now = await stateAt();
    expect(now.slice(0, afterFirst.length).map((m) => m.id)).toEqual(afterFirst.map((m) => m.id));
    expect(now.length).toBe(afterFirst.length * 2);
    expect(now.filter((m) => m.content.startsWith("question") || m.content.startsWith("again")).map((m) => m.content)).toEqual(["question 1", "again from run 1"]);
    // The thread really was written in the requested mode.
    const stamped = (await env.sql.all<{ n: number }>("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ? AND CAST(metadata AS TEXT) LIKE '%checkpoint_channel_mode%'", [id]))[0]!;
    expect(Number(stamped.n) > 0).toBe(mode === "delta");
  });

  it("[CCM-12] answers a resume from an old handle brought back regenerate (200) and branch from the checkpoint before their question", async () => {
    process.env.CHECKPOINT_CHANNEL_MODE = mode;
    env = await setUpEngineRouteTestEnv(engine, "resume-lineage-");
    const id = ((await (await createPost(apiRequest("POST", "/api/v1/threads", AS_ADMIN, {}))).json()) as { threadId: string }).threadId;
    type Message = { id: string; type: string; content: string };
    const messages = async (threadId = id) =>
      ((await (await stateGet(apiRequest("GET", `/api/v1/threads/${threadId}/state`, AS_ADMIN), ctx(threadId))).json()) as { values: { messages: Message[] } }).values.messages;
    const answers = async () => (await messages()).filter((m) => m.type === "ai" && m.content.startsWith("Answer"));
    const post = async (handler: typeof runsPost, path: string, body: unknown) => {
      const res = await handler(apiRequest("POST", `/api/v1/threads/${id}/${path}`, AS_ADMIN, body), ctx(id));
      return { status: res.status, body: (await res.json()) as RunBody & { threadId?: string; code?: string } };
    };
    await post(runsPost, "runs", { input: { content: "question 1" } });
    const handle = (await post(runsPost, "runs", { input: { content: "question 2" } })).body.checkpointId!;
    await post(runsPost, "runs", { input: { content: "question 3" } });
    const kept = (await messages()).slice(0, 8).map((m) => m.id);
    // Rewrite the history around run 2's handle, resuming it twice.
    expect((await post(regeneratePost, "regenerate", { messageId: (await answers())[0]!.id })).status).toBe(200);
    expect((await post(runsPost, "runs", { input: { content: "resumed" }, checkpointId: handle })).body.status).toBe("success");
    expect((await post(regeneratePost, "regenerate", { messageId: (await answers())[1]!.id })).status).toBe(200);
    expect((await post(runsPost, "runs", { input: { content: "resumed again" }, checkpointId: handle })).body.status).toBe("success");
    expect((await messages()).slice(0, 8).map((m) => m.id)).toEqual(kept);
    // Branch from run 1's answer as the resume brought it back: the copy ends with it.
    const branched = await post(branchPost, "branch", { messageId: kept[3]! });
    expect(branched.status).toBe(200);
    expect((await messages(branched.body.threadId!)).map((m) => m.id)).toEqual(kept.slice(0, 4));
    // Regenerate run 1's answer: no false checkpoint_lineage_integrity (409).
    const regenerated = await post(regeneratePost, "regenerate", { messageId: kept[3]! });
    expect(regenerated.body.code).toBeUndefined();
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.status).toBe("success");
    const now = await messages();
    expect(now).toHaveLength(4);
    expect(now.filter((m) => m.type === "human").map((m) => m.content)).toEqual(["question 1"]);
    expect(now.some((m) => kept.includes(m.id))).toBe(false);
  });
});
}
