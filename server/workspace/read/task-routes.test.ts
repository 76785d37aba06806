import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as taskGet } from "@/app/api/v1/tasks/[id]/route";
import { GET as tasksGet } from "@/app/api/v1/tasks/route";
import { hashSessionToken } from "@/server/auth/current-user";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { sampleFixture } from "../fixture/test-support";
import { importFixture } from "../fixture/import-fixture";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";

const BASE = "http://localhost:3000";
const VIEWER = "wsr_session=viewer-token";

const get = (url: string, cookie?: string) => new Request(`${BASE}${url}`, { headers: cookie ? { cookie } : {} });
const withId = (id: string) => ({ params: Promise.resolve({ id }) });

describe("task routes", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = createTestRuntime({ prefix: "task-routes-", install: true });
    const db = rt.handle.sqlite;
    db.prepare("insert into users (id, email, role, password_hash, created_at) values ('u1', 'v@example.com', 'viewer', 'x', '2026-01-01T00:00:00Z')").run();
    db.prepare("insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, 'u1', 0, 9e15)").run(hashSessionToken("viewer-token"));
    await importFixture(createSqliteWorkspaceStore(rt.handle), { file: "in.json", text: sampleFixture() });
  });
  afterEach(() => rt.dispose());

  it("GET /tasks: 401 anonymous, 400 on a bad limit or unknown parameter, 200 for a viewer", async () => {
    expect((await tasksGet(get("/api/v1/tasks"))).status).toBe(401);
    expect((await tasksGet(get("/api/v1/tasks?limit=0", VIEWER))).status).toBe(400);
    expect((await tasksGet(get("/api/v1/tasks?limit=abc", VIEWER))).status).toBe(400);
    expect((await tasksGet(get("/api/v1/tasks?sort=title", VIEWER))).status).toBe(400);
    const ok = await tasksGet(get("/api/v1/tasks?limit=1", VIEWER));
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(body.tasks).toHaveLength(1);
  });

  it("GET /tasks/{id}: 401 anonymous, 404 unknown, 200 with messages for a viewer", async () => {
    expect((await taskGet(get("/api/v1/tasks/t1"), withId("t1"))).status).toBe(401);
    const missing = await taskGet(get("/api/v1/tasks/nope", VIEWER), withId("nope"));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("not_found");
    const ok = await taskGet(get("/api/v1/tasks/t1", VIEWER), withId("t1"));
    expect(ok.status).toBe(200);
    expect((await ok.json()).messages.map((m: { id: string }) => m.id)).toEqual(["m1", "m2"]);
  });
});
