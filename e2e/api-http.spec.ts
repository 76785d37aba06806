// Every API route over real HTTP against the built app on its own temp
// database: the authorization matrix, strict-body rejections (each checked to
// change nothing), and the main success paths. Desktop project only.
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { isolatedPort, startIsolatedServer, type IsolatedServer } from "./support/isolated-server";

const RETENTION = "/api/v1/system/database/tool-payload-retention";
let server: IsolatedServer;
let admin: APIRequestContext;
let viewer: APIRequestContext;
let anonymous: APIRequestContext;

async function signedIn(account: { email: string; password: string }): Promise<APIRequestContext> {
  const context = await playwrightRequest.newContext({ baseURL: server.baseURL });
  const res = await context.post("/api/v1/auth/login", { data: account });
  expect(res.status()).toBe(200);
  return context;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startIsolatedServer(isolatedPort("apiHttp"));
  admin = await signedIn(ADMIN);
  viewer = await signedIn(VIEWER);
  anonymous = await playwrightRequest.newContext({ baseURL: server.baseURL });
});

test.afterAll(async () => {
  await Promise.all([admin?.dispose(), viewer?.dispose(), anonymous?.dispose()]);
  await server?.stop();
});

type Call = { method: "GET" | "POST" | "PUT" | "DELETE"; path: string; data?: unknown };
const reads: Call[] = [
  { method: "GET", path: RETENTION },
  { method: "GET", path: "/api/v1/system/database/stats" },
  { method: "GET", path: "/api/v1/system/database/backups" },
  { method: "GET", path: "/api/v1/auth/me" },
];
const mutations: Call[] = [
  { method: "PUT", path: RETENTION, data: { policy: { enabled: false, age: { value: 3, unit: "months" } }, expectedRevision: 0 } },
  { method: "POST", path: `${RETENTION}/analyze`, data: { age: { value: 2, unit: "weeks" } } },
  { method: "POST", path: `${RETENTION}/run`, data: { expectedRevision: 0 } },
  { method: "POST", path: `${RETENTION}/cancel`, data: { operationId: "x" } },
  { method: "POST", path: "/api/v1/system/database/vacuum", data: {} },
  { method: "POST", path: "/api/v1/system/database/backups", data: {} },
  { method: "POST", path: "/api/v1/threads", data: {} },
];

async function send(context: APIRequestContext, call: Call, headers: Record<string, string> = {}) {
  return context.fetch(call.path, { method: call.method, data: call.data, headers: { origin: server.baseURL, ...headers } });
}

async function compactionState() {
  return (await (await admin.get(RETENTION)).json()) as { policy: unknown; preparation: unknown; activeOperation: unknown };
}

test("[TPR-API-08] anonymous requests are 401 everywhere", async () => {
  for (const call of [...reads.filter((c) => c.path !== "/api/v1/auth/me"), ...mutations]) {
    const res = await send(anonymous, call);
    expect(res.status(), `${call.method} ${call.path}`).toBe(401);
    expect((await res.json()).error.code).toBe("unauthenticated");
  }
});

test("[TPR-API-01] [TPR-UI-16] viewers read, and every mutation is 403 without changing anything", async () => {
  for (const call of reads) expect((await send(viewer, call)).status(), call.path).toBe(200);
  const before = await compactionState();
  for (const call of mutations) {
    const res = await send(viewer, call);
    expect(res.status(), `${call.method} ${call.path}`).toBe(403);
    expect((await res.json()).error.code).toBe("forbidden");
  }
  expect(await compactionState()).toEqual(before);
  expect(((await (await admin.get("/api/v1/system/database/backups")).json()) as unknown[]).length ?? 0).toBe(0);
});

test("a mutation from a foreign Origin is 403 and changes nothing", async () => {
  const before = await compactionState();
  for (const call of mutations) {
    const res = await send(admin, call, { origin: "https://evil.example" });
    expect(res.status(), call.path).toBe(403);
    expect((await res.json()).error.code).toBe("cross_origin");
  }
  expect(await compactionState()).toEqual(before);
});

test("[TPR-API-08] [TPR-POL-02] strict bodies: unknown fields, bad values and oversized bodies are 400 and change nothing", async () => {
  const before = await compactionState();
  const bad: Call[] = [
    { method: "PUT", path: RETENTION, data: { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "skip", extra: true } },
    { method: "PUT", path: RETENTION, data: { policy: { enabled: true, age: { value: 0, unit: "weeks" } }, expectedRevision: 0, preparation: "skip" } },
    { method: "PUT", path: RETENTION, data: { policy: { enabled: true, age: { value: 3, unit: "days" } }, expectedRevision: 0, preparation: "skip" } },
    { method: "PUT", path: RETENTION, data: { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: -1, preparation: "skip" } },
    { method: "PUT", path: RETENTION, data: { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "maybe" } },
    { method: "POST", path: `${RETENTION}/analyze`, data: { age: { value: 2, unit: "weeks" }, force: true } },
    { method: "POST", path: `${RETENTION}/run`, data: {} },
    { method: "POST", path: `${RETENTION}/cancel`, data: { operationId: 5 } },
    { method: "PUT", path: RETENTION, data: { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "skip", pad: "x".repeat(1024 * 1024 + 10) } },
  ];
  for (const call of bad) {
    const res = await send(admin, call);
    expect(res.status(), JSON.stringify(call.data).slice(0, 120)).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe("invalid_request");
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  }
  const broken = await admin.fetch(RETENTION, { method: "PUT", data: "{not json", headers: { origin: server.baseURL, "content-type": "application/json" } });
  expect(broken.status()).toBe(400);
  expect(await compactionState()).toEqual(before);
});

test("[TPR-API-02] [TPR-API-08] enabling needs a backup choice; a stale revision is 409", async () => {
  const enable = { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0 };
  const missing = await send(admin, { method: "PUT", path: RETENTION, data: enable });
  expect(missing.status()).toBe(400);
  expect((await missing.json()).error.code).toBe("backup_choice_required");
  const ok = await send(admin, { method: "PUT", path: RETENTION, data: { ...enable, preparation: "skip" } });
  expect(ok.status()).toBe(200);
  expect(await ok.json()).toMatchObject({ policy: { enabled: true, revision: 1 }, preparation: { state: "ready", choice: "skip" } });
  const stale = await send(admin, { method: "PUT", path: RETENTION, data: { ...enable, preparation: "skip" } });
  expect(stale.status()).toBe(409);
  expect((await stale.json()).error.code).toBe("conflict");
});

test("[TPR-API-03] [TPR-API-04] [TPR-API-09] analyze and run answer 202 with operation ids; run on a stale revision is 409", async () => {
  const analysis = await send(admin, { method: "POST", path: `${RETENTION}/analyze`, data: { age: { value: 2, unit: "weeks" } } });
  expect([202, 409]).toContain(analysis.status());
  if (analysis.status() === 202) expect(await analysis.json()).toEqual({ operationId: expect.any(String) });
  await expect.poll(async () => (await compactionState()).activeOperation, { timeout: 30_000 }).toBeNull();
  const stale = await send(admin, { method: "POST", path: `${RETENTION}/run`, data: { expectedRevision: 0 } });
  expect(stale.status()).toBe(409);
  const run = await send(admin, { method: "POST", path: `${RETENTION}/run`, data: { expectedRevision: 1 } });
  expect(run.status()).toBe(202);
  const { operationId } = await run.json();
  expect(operationId).toEqual(expect.any(String));
  await expect.poll(async () => ((await compactionState()) as unknown as { latestRun: { id: string } | null }).latestRun?.id, { timeout: 30_000 }).toBe(operationId);
  const cancelDone = await send(admin, { method: "POST", path: `${RETENTION}/cancel`, data: { operationId } });
  expect(cancelDone.status()).toBe(409);
});

test("database maintenance routes answer over HTTP", async () => {
  const vacuum = await send(admin, { method: "POST", path: "/api/v1/system/database/vacuum", data: {} });
  expect(vacuum.status()).toBe(200);
  expect(await vacuum.json()).toMatchObject({ beforeBytes: expect.any(Number), afterBytes: expect.any(Number) });
  const created = await send(admin, { method: "POST", path: "/api/v1/system/database/backups", data: {} });
  expect(created.status()).toBe(201);
  const { name } = await created.json();
  const download = await admin.get(`/api/v1/system/database/backups/${name}`);
  expect(download.status()).toBe(200);
  expect((await download.body()).subarray(0, 15).toString()).toBe("SQLite format 3");
  expect((await viewer.get(`/api/v1/system/database/backups/${name}`)).status()).toBe(403);
  expect((await admin.get("/api/v1/system/database/backups/..%2F..%2Fetc%2Fpasswd")).status()).toBeGreaterThanOrEqual(400);
  const removed = await send(admin, { method: "DELETE", path: `/api/v1/system/database/backups/${name}` });
  expect(removed.status()).toBeLessThan(300);
});

test("workspace routes: unknown ids are 404 with the shared error body", async () => {
  for (const path of ["/api/v1/tasks/nope/export", "/api/v1/messages/nope/shell-output"]) {
    const res = await viewer.get(path);
    expect(res.status(), path).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
  }
});

test("[TPR-API-07] the event stream is text/event-stream for members and 401 for anonymous", async () => {
  expect((await anonymous.get("/api/v1/system/events")).status()).toBe(401);
  const controller = new AbortController();
  const cookies = (await viewer.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  const res = await fetch(`${server.baseURL}/api/v1/system/events`, { headers: { cookie: cookies }, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first).toContain(": connected");
  controller.abort();
});
