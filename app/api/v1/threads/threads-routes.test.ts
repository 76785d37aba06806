import { afterEach, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { GET as titlesGet, POST as createThreadPost } from "@/app/api/v1/threads/route";
import { POST as runPost } from "@/app/api/v1/threads/[id]/runs/route";
import { POST as regeneratePost } from "@/app/api/v1/threads/[id]/regenerate/route";
import { POST as branchPost } from "@/app/api/v1/threads/[id]/branch/route";
import { GET as stateGet } from "@/app/api/v1/threads/[id]/state/route";
import { POST as historyPost } from "@/app/api/v1/threads/[id]/history/route";
import { createSession } from "@/server/auth/sessions";
import { createUser } from "@/server/auth/users";
import { SESSION_COOKIE } from "@/server/auth/current-user";
import { createCheckpointAccessor } from "@/server/checkpoints/accessor";
import { startRun } from "@/server/checkpoints/runs";
import { openSqliteCheckpoints } from "@/server/checkpoints/sqlite-saver";
import { createThread } from "@/server/checkpoints/threads";
import { sequentialIds, testRunDeps } from "@/server/checkpoints/test-support";
import { openPgCheckpoints, startPgSaver } from "@/server/checkpoints/pg-saver";
import type { StampingSaver } from "@/server/checkpoints/stamping-saver";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { engineSql } from "@/server/http/route-test-support";
import { createEngineTestRuntime, type EngineTestRuntime } from "@/server/runtime-test-support";
import { createPgDb } from "@/server/db/pg/pg-db";
import { readPgConfig } from "@/server/db/pg/config";
import { wrapSqliteDb } from "@/server/db/sqlite-db";

const BASE = "http://localhost:3000";
type Handler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

let rt: EngineTestRuntime;
let admin: string;
let viewer: string;

async function cookieFor(email: string, role: "admin" | "viewer"): Promise<string> {
  const { id } = await createUser(rt.stores.auth, { email, role, password: "long-enough-password", nowMs: Date.now() });
  const { token } = await createSession(rt.stores.auth, { userId: id, nowMs: Date.now() });
  return `${SESSION_COOKIE}=${token}`;
}

async function call(handler: Handler, options: { cookie: string; id?: string; body?: unknown; method?: string }) {
  const method = options.method ?? "POST";
  const request = new Request(`${BASE}/api/v1/threads${options.id ? `/${options.id}` : ""}`, {
    method,
    headers: { cookie: options.cookie, origin: BASE, "content-type": "application/json" },
    body: method === "GET" ? undefined : JSON.stringify(options.body ?? {}),
  });
  const response = await handler(request, { params: Promise.resolve<Record<string, string>>(options.id ? { id: options.id } : {}) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
}

/** Another process's saver in delta mode on the same database (SqliteSaver on the file, or PostgresSaver on a pool of its own, once the runtime's setup is done). */
async function openDeltaWriter(): Promise<{ saver: StampingSaver; close(): Promise<void> }> {
  if (rt.handle) {
    const db = wrapSqliteDb({ sqlite: new Database(rt.handle.file), file: rt.handle.file });
    return { saver: openSqliteCheckpoints({ db, mode: "delta" }).saver, close: async () => db.closeNow() };
  }
  await rt.checkpoints.pgSaver!.ready();
  const db = createPgDb(readPgConfig(rt.target.engine === "postgres" ? rt.target.url : "", { PG_POOL_MAX: "2" }));
  const handle = startPgSaver({ pool: db.pool });
  await handle.ready();
  return { saver: openPgCheckpoints({ handle, db, mode: "delta" }).saver, close: () => db.close() };
}

async function newThreadWithTurns(turns: number): Promise<string> {
  const created = await call(createThreadPost, { cookie: admin });
  expect(created.status).toBe(200);
  const threadId = String(created.body.threadId);
  for (let i = 0; i < turns; i += 1) {
    const run = await call(runPost, { cookie: admin, id: threadId, body: { input: { content: `question ${i}` } } });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: "success" });
    expect(typeof run.body.runId).toBe("string");
    expect(typeof run.body.checkpointId).toBe("string");
  }
  return threadId;
}

// The same suite on every engine (PostgreSQL with TEST_POSTGRES_URL).
for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
describe.skipIf(skip)(`thread API [${engine}]`, () => {
  beforeEach(async () => {
    delete process.env.CHECKPOINT_CHANNEL_MODE;
    rt = await createEngineTestRuntime(engine, { prefix: "threads-routes-", install: true });
    admin = await cookieFor("admin@example.com", "admin");
    viewer = await cookieFor("viewer@example.com", "viewer");
  });
  afterEach(async () => {
    await rt.dispose();
    delete process.env.CHECKPOINT_CHANNEL_MODE;
  });

  it("admins create and run threads; state has the documented shape", async () => {
    const threadId = await newThreadWithTurns(2);
    const state = await call(stateGet, { cookie: viewer, id: threadId, method: "GET" });
    expect(state.status).toBe(200);
    expect(Object.keys(state.body).sort()).toEqual(["checkpointId", "next", "threadId", "values"]);
    expect(state.body.threadId).toBe(threadId);
    expect(state.body.next).toEqual([]);
    const values = state.body.values as { messages: { id: string; type: string; content: string }[]; title: string };
    expect(values.title).toBe("question 0");
    expect(values.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]);
    for (const m of values.messages) expect(Object.keys(m).sort()).toEqual(["content", "id", "type"]);
  });

  it("[#30] GET /threads?ids= answers each thread's title channel to members; an unknown id is found: false; bad ids are 400", async () => {
    const first = await newThreadWithTurns(1);
    const second = await newThreadWithTurns(2);
    const titles = async (query: string, cookie: string) => {
      const response = await titlesGet(new Request(`${BASE}/api/v1/threads${query}`, { headers: { cookie } }));
      return { status: response.status, body: (await response.json()) as { threads?: { threadId: string; found: boolean; title: string | null }[]; error?: { code: string } } };
    };
    const read = await titles(`?ids=${first},${second},no-such-thread,${first}`, viewer);
    expect(read.status).toBe(200);
    expect(read.body.threads).toEqual([
      { threadId: first, found: true, title: "question 0" },
      { threadId: second, found: true, title: "question 0" },
      { threadId: "no-such-thread", found: false, title: null },
    ]);
    expect((await titles("", viewer)).status).toBe(400);
    expect((await titles(`?ids=${Array.from({ length: 51 }, (_, i) => `t${i}`).join(",")}`, viewer)).status).toBe(400);
    expect((await titles(`?ids=${first}&extra=1`, viewer)).status).toBe(400);
    expect((await titlesGet(new Request(`${BASE}/api/v1/threads?ids=${first}`))).status).toBe(401);
  });

  it("[CCM-10] history: 0 gives [], items are newest first with the documented shape, limits clamp to 100", async () => {
    const threadId = await newThreadWithTurns(1);
    expect((await call(historyPost, { cookie: viewer, id: threadId, body: { limit: 0 } })).body).toEqual([]);
    const two = await call(historyPost, { cookie: viewer, id: threadId, body: { limit: 2 } });
    expect(two.status).toBe(200);
    const items = two.body as unknown as { checkpointId: string; parentCheckpointId: string; createdAt: string; metadata: object; values: object }[];
    expect(items).toHaveLength(2);
    expect(Object.keys(items[0]!).sort()).toEqual(["checkpointId", "createdAt", "metadata", "parentCheckpointId", "values"]);
    expect(items[0]!.parentCheckpointId).toBe(items[1]!.checkpointId);
    // Admission cleanup reclaims one duration leaf per run: 25 runs still exceed 100 checkpoints.
    for (let i = 0; i < 25; i += 1) await call(runPost, { cookie: admin, id: threadId, body: { input: { content: `more ${i}` } } });
    const clamped = await call(historyPost, { cookie: viewer, id: threadId, body: { limit: 1000 } });
    expect(clamped.status).toBe(200);
    expect((clamped.body as unknown as unknown[]).length).toBe(100);
    expect((await call(historyPost, { cookie: viewer, id: threadId, body: { limit: -1 } })).status).toBe(400);
  });

  it("[CCM-15] regenerate and branch over HTTP; the full-mode server's regenerate forks the lineage", async () => {
    expect(process.env.CHECKPOINT_CHANNEL_MODE ?? "full").toBe("full");
    const threadId = await newThreadWithTurns(2);
    const forks = async () =>
      (
        await engineSql(rt).all<{ parent: string }>(
          "select parent_checkpoint_id as parent from checkpoints where thread_id = ? and parent_checkpoint_id is not null group by parent_checkpoint_id having count(*) > 1",
          [threadId],
        )
      ).length;
    expect(await forks()).toBe(0);
    const state = await call(stateGet, { cookie: admin, id: threadId, method: "GET" });
    const messages = (state.body.values as { messages: { id: string; type: string }[] }).messages;
    const firstAnswer = messages[3]!;
    const branched = await call(branchPost, { cookie: admin, id: threadId, body: { messageId: firstAnswer.id } });
    expect(branched.status).toBe(200);
    const branchId = String(branched.body.threadId);
    const branchState = await call(stateGet, { cookie: admin, id: branchId, method: "GET" });
    expect((branchState.body.values as { messages: { id: string }[] }).messages.map((m) => m.id)).toEqual(messages.slice(0, 4).map((m) => m.id));
    const lastAnswer = messages.at(-1)!;
    const regenerated = await call(regeneratePost, { cookie: admin, id: threadId, body: { messageId: lastAnswer.id } });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.status).toBe("success");
    const after = await call(stateGet, { cookie: admin, id: threadId, method: "GET" });
    const ids = (after.body.values as { messages: { id: string }[] }).messages.map((m) => m.id);
    expect(ids).not.toContain(lastAnswer.id);
    expect(ids.slice(0, 4)).toEqual(messages.slice(0, 4).map((m) => m.id));
    // Full mode keeps forking: the regenerated answer hangs off the checkpoint before its question beside the old one.
    expect(await forks()).toBe(1);
    // A human message cannot be regenerated; an unknown one is 404.
    expect((await call(regeneratePost, { cookie: admin, id: threadId, body: { messageId: messages[0]!.id } })).status).toBe(400);
    expect((await call(regeneratePost, { cookie: admin, id: threadId, body: { messageId: "nope" } })).status).toBe(404);
  });

  it("members read but cannot run; bad input is a 400 that changes nothing", async () => {
    const threadId = await newThreadWithTurns(1);
    expect((await call(createThreadPost, { cookie: viewer })).status).toBe(403);
    expect((await call(runPost, { cookie: viewer, id: threadId, body: { input: { content: "x" } } })).status).toBe(403);
    expect((await call(branchPost, { cookie: viewer, id: threadId, body: { messageId: "x" } })).status).toBe(403);
    expect((await call(stateGet, { cookie: "", id: threadId, method: "GET" })).status).toBe(401);
    const rows = async () => Number((await engineSql(rt).all<{ n: number }>("select count(*) as n from checkpoints"))[0]!.n);
    const before = await rows();
    for (const body of [{}, { input: {} }, { input: { content: "" } }, { input: { content: "x" }, extra: 1 }, { input: { content: 5 } }]) {
      const bad = await call(runPost, { cookie: admin, id: threadId, body });
      expect(bad.status).toBe(400);
      expect(bad.body.error?.code).toBe("invalid_request");
    }
    expect(await rows()).toBe(before);
    expect((await call(stateGet, { cookie: admin, id: "missing-thread", method: "GET" })).status).toBe(404);
    expect((await call(runPost, { cookie: admin, id: "missing-thread", body: { input: { content: "x" } } })).status).toBe(404);
  });

  it("[CCM-06] over HTTP a full server answers 409 naming the delta thread; [CCM-02] a changed mode answers 503", async () => {
    // A delta process wrote this thread into the same database.
    const writer = await openDeltaWriter();
    const config = { mode: "delta" as const, snapshotFrequency: 10 };
    const accessor = createCheckpointAccessor({ saver: writer.saver, config });
    const deps = testRunDeps(accessor, sequentialIds("delta"));
    const { threadId } = await createThread(deps);
    await startRun(deps, { threadId, content: "written by delta" });
    await writer.close();

    for (const attempt of [
      call(stateGet, { cookie: viewer, id: threadId, method: "GET" }),
      call(historyPost, { cookie: viewer, id: threadId, body: { limit: 5 } }),
      call(runPost, { cookie: admin, id: threadId, body: { input: { content: "x" } } }),
    ]) {
      const response = await attempt;
      expect(response.status).toBe(409);
      expect(response.body.error?.code).toBe("checkpoint_mode_mismatch");
      expect(response.body.error?.message).toContain(threadId);
    }
    // The process froze full; a configuration change needs a restart.
    process.env.CHECKPOINT_CHANNEL_MODE = "delta";
    const reconfigured = await call(stateGet, { cookie: viewer, id: threadId, method: "GET" });
    expect(reconfigured.status).toBe(503);
    expect(reconfigured.body.error?.code).toBe("checkpoint_mode_reconfiguration");
  });
});
}
