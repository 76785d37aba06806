import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PUT as putMetadata } from "@/app/api/v1/messages/[id]/metadata/route";
import { GET as getShellOutputRoute } from "@/app/api/v1/messages/[id]/shell-output/route";
import { POST as postMessage } from "@/app/api/v1/sessions/[id]/messages/route";
import { GET as getExport } from "@/app/api/v1/tasks/[id]/export/route";
import { createSession } from "@/server/auth/sessions";
import { manualClock } from "@/server/clock";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { engineSql, type EngineSql } from "@/server/http/route-test-support";
import { createEngineTestRuntime, type EngineTestRuntime } from "@/server/runtime-test-support";
import { exportTask } from "./export/export-task";
import { engineFingerprint, sampleFixture } from "./fixture/test-support";
import { importFixture } from "./fixture/import-fixture";

const BASE = "http://localhost:3000";
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
// The same suite on every engine.
for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
describe.skipIf(skip)(`[${engine}]`, () => {
let rt: EngineTestRuntime;
let sql: EngineSql;
let adminCookie: string;
let viewerCookie: string;

const one = async (text: string) => (await sql.all(text))[0];
const fingerprint = () => engineFingerprint(sql);

function call(
  handler: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>,
  options: { url: string; id: string; method?: string; cookie?: string; body?: string; origin?: string },
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.origin) headers.origin = options.origin;
  const request = new Request(`${BASE}${options.url}`, { method: options.method ?? "GET", headers, body: options.body });
  return handler(request, { params: Promise.resolve({ id: options.id }) });
}

beforeEach(async () => {
  rt = await createEngineTestRuntime(engine, { prefix: "workspace-routes-", install: true, clock: manualClock(NOW) });
  sql = engineSql(rt);
  // Users through the store: these tests never sign in with a password, so skip the KDF.
  for (const [id, role] of [["admin-1", "admin"], ["viewer-1", "viewer"]] as const) {
    await rt.stores.auth.insertUser({ id, email: `${role}@example.com`, role, passwordHash: "unused", createdAt: new Date(NOW).toISOString() });
  }
  adminCookie = `wsr_session=${(await createSession(rt.stores.auth, { userId: "admin-1", nowMs: NOW })).token}`;
  viewerCookie = `wsr_session=${(await createSession(rt.stores.auth, { userId: "viewer-1", nowMs: NOW })).token}`;
  await importFixture(rt.stores.workspace, { file: "in.json", text: sampleFixture() });
});

afterEach(async () => rt.dispose());

describe("GET /api/v1/tasks/{id}/export", () => {
  it("[TPR-TX-09] lets a member download the task fixture as an attachment", async () => {
    const res = await call(getExport, { url: "/api/v1/tasks/t1/export", id: "t1", cookie: viewerCookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="task-t1.json"');
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.text()).toBe(await exportTask(rt.stores.workspace, "t1"));
  });

  it("answers 404 not_found for an unknown task and 401 without a session", async () => {
    const missing = await call(getExport, { url: "/api/v1/tasks/zz/export", id: "zz", cookie: viewerCookie });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("not_found");
    const anonymous = await call(getExport, { url: "/api/v1/tasks/t1/export", id: "t1" });
    expect(anonymous.status).toBe(401);
  });
});

describe("GET /api/v1/messages/{id}/shell-output", () => {
  it("[TPR-TX-06] 200 with output, 404 for non-shell, 410 with removedAt and summary beside error", async () => {
    const ok = await call(getShellOutputRoute, { url: "/api/v1/messages/m2/shell-output", id: "m2", cookie: viewerCookie });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ messageId: "m2", command: "npm test", stdout: "ok\n", exitCode: 0 });

    const notShell = await call(getShellOutputRoute, { url: "/api/v1/messages/m1/shell-output", id: "m1", cookie: viewerCookie });
    expect(notShell.status).toBe(404);
    expect((await notShell.json()).error.code).toBe("not_found");

    const marker =
      '{"normalized":{"kind":"shell_exec","shell_exec":{"command":"npm test","work_dir":"/repo","output":{"exit_code":0,"truncated":false}}},' +
      '"payload_retention":{"version":1,"removed_at":"2026-05-01T00:00:00Z","removed_fields":["normalized.shell_exec.output.stdout"],"removed_bytes":3}}';
    const put = await call(putMetadata, {
      url: "/api/v1/messages/m2/metadata",
      id: "m2",
      method: "PUT",
      cookie: adminCookie,
      body: `{"metadata":${marker}}`,
    });
    expect(put.status).toBe(200);
    const gone = await call(getShellOutputRoute, { url: "/api/v1/messages/m2/shell-output", id: "m2", cookie: viewerCookie });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toEqual({
      error: { code: "tool_payload_removed", message: expect.any(String) },
      removedAt: "2026-05-01T00:00:00Z",
      summary: {
        command: "npm test",
        workDir: "/repo",
        exitCode: 0,
        truncated: false,
        removedFields: ["normalized.shell_exec.output.stdout"],
      },
    });
  });
});

describe("POST /api/v1/sessions/{id}/messages", () => {
  const body = (extra: string = "") =>
    `{"id":"m-new","turnId":"u1","authorType":"agent","type":"tool_execute","content":"Run build",` +
    `"metadata":{"tool_call_id":"c9","2":"b","a":9007199254740993,"p":1.10,"s":"\\u00e9"}${extra}}`;

  it("[TPR-RED-10] appends with lossless metadata, mirrored tool_call_id and clock-stamped times", async () => {
    const res = await call(postMessage, { url: "/api/v1/sessions/s1/messages", id: "s1", method: "POST", cookie: adminCookie, body: body() });
    expect(res.status).toBe(201);
    const stamp = new Date(NOW).toISOString();
    expect(await res.json()).toEqual({
      message: {
        id: "m-new",
        sessionId: "s1",
        turnId: "u1",
        authorType: "agent",
        type: "tool_execute",
        toolCallId: "c9",
        createdAt: stamp,
        updatedAt: stamp,
      },
    });
    expect(await one("select metadata, tool_call_id, created_at_ms from messages where id = 'm-new'")).toEqual({
      metadata: '{"tool_call_id":"c9","2":"b","a":9007199254740993,"p":1.10,"s":"\\u00e9"}',
      tool_call_id: "c9",
      created_at_ms: NOW,
    });
  });

  it("generates an id and keeps a given createdAt", async () => {
    const res = await call(postMessage, {
      url: "/api/v1/sessions/s1/messages",
      id: "s1",
      method: "POST",
      cookie: adminCookie,
      body: '{"authorType":"user","type":"message","content":"hi","metadata":{},"createdAt":"2025-01-01T00:00:00+02:00"}',
    });
    expect(res.status).toBe(201);
    const json = await res.json();
    expect(json.message.id).toMatch(/^msg_/);
    expect(json.message.createdAt).toBe("2025-01-01T00:00:00+02:00");
  });

  it.each([
    ["unknown field", body(',"extra":1'), 400, "invalid_request"],
    ["metadata not an object", body().replace(/"metadata":\{.*\}/, '"metadata":[1]'), 400, "invalid_request"],
    ["invalid JSON", body().slice(0, -1), 400, "invalid_request"],
    ["unknown type", body().replace('"tool_execute"', '"shell"'), 400, "invalid_request"],
    ["invalid createdAt", body(',"createdAt":"yesterday"'), 400, "invalid_request"],
    ["turn of another session", body().replace('"u1"', '"u2"'), 400, "invalid_request"],
    ["duplicate id", body().replace('"m-new"', '"m1"'), 409, "conflict"],
  ])("[TPR-API-08] rejects %s and changes nothing", async (_name, text, status, code) => {
    const before = await fingerprint();
    const res = await call(postMessage, { url: "/api/v1/sessions/s1/messages", id: "s1", method: "POST", cookie: adminCookie, body: text });
    expect(res.status).toBe(status);
    expect((await res.json()).error.code).toBe(code);
    expect(await fingerprint()).toEqual(before);
  });

  it("404 for an unknown session, 403 for a viewer and for a foreign Origin", async () => {
    const unknown = await call(postMessage, { url: "/api/v1/sessions/zz/messages", id: "zz", method: "POST", cookie: adminCookie, body: body() });
    expect(unknown.status).toBe(404);
    const viewer = await call(postMessage, { url: "/api/v1/sessions/s1/messages", id: "s1", method: "POST", cookie: viewerCookie, body: body() });
    expect(viewer.status).toBe(403);
    const foreign = await call(postMessage, {
      url: "/api/v1/sessions/s1/messages",
      id: "s1",
      method: "POST",
      cookie: adminCookie,
      body: body(),
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(await one("select count(*) as n from messages where id = 'm-new'")).toEqual({ n: 0 });
  });
});

describe("PUT /api/v1/messages/{id}/metadata", () => {
  it("[TPR-RED-10] replaces metadata losslessly and bumps updated_at from the clock", async () => {
    const res = await call(putMetadata, {
      url: "/api/v1/messages/m1/metadata",
      id: "m1",
      method: "PUT",
      cookie: adminCookie,
      body: '{ "metadata" : { "tool_call_id": "c5", "10": 1, "x": 1e-7, "n": -0 } }',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: { id: "m1", toolCallId: "c5", updatedAt: new Date(NOW).toISOString() } });
    expect(await one("select metadata, updated_at_ms from messages where id = 'm1'")).toEqual({
      metadata: '{"tool_call_id":"c5","10":1,"x":1e-7,"n":-0}',
      updated_at_ms: NOW,
    });
  });

  it("[TPR-API-08] 404 unknown message, 400 strict body, 403 viewer; nothing changes", async () => {
    const before = await fingerprint();
    const put = (id: string, cookie: string, body: string) =>
      call(putMetadata, { url: `/api/v1/messages/${id}/metadata`, id, method: "PUT", cookie, body });
    expect((await put("zz", adminCookie, '{"metadata":{}}')).status).toBe(404);
    expect((await put("m1", adminCookie, '{"metadata":{},"content":"x"}')).status).toBe(400);
    expect((await put("m1", adminCookie, '{"metadata":"{}"}')).status).toBe(400);
    expect((await put("m1", adminCookie, "")).status).toBe(400);
    expect((await put("m1", viewerCookie, '{"metadata":{}}')).status).toBe(403);
    expect(await fingerprint()).toEqual(before);
  });
});
});
}
