// Restore and sign-in sessions, through the real routes: a restore brings
// the data back, not who is signed in.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { POST as backupPost } from "@/app/api/v1/system/database/backups/route";
import { POST as restorePost } from "@/app/api/v1/system/database/backups/[name]/restore/route";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";
import { createUser } from "@/server/auth/users";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";

const BASE = "http://localhost:3000";
const ADMIN = { email: "admin@example.com", password: "admin-password-long" };
const LATER = { email: "later@example.com", password: "later-password-long" };

let rt: TestRuntime;

function post(path: string, cookie: string | null, body?: unknown): Request {
  const headers: Record<string, string> = { origin: BASE, "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  return new Request(`${BASE}${path}`, { method: "POST", headers, body: JSON.stringify(body ?? {}) });
}

async function signIn(user: { email: string; password: string }): Promise<string> {
  const response = await loginPost(post("/api/v1/auth/login", null, user));
  expect(response.status).toBe(200);
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

async function me(cookie: string): Promise<number> {
  return (await meGet(new Request(`${BASE}/api/v1/auth/me`, { headers: { cookie } }))).status;
}

async function backUp(cookie: string): Promise<string> {
  const response = await backupPost(post("/api/v1/system/database/backups", cookie));
  expect(response.status).toBe(201);
  return ((await response.json()) as { name: string }).name;
}

async function restore(cookie: string, name: string): Promise<void> {
  const response = await restorePost(post(`/api/v1/system/database/backups/${name}/restore`, cookie, { confirm: name }), {
    params: Promise.resolve({ name }),
  });
  expect(response.status).toBe(200);
}

beforeEach(() => {
  rt = createTestRuntime({ prefix: "restore-sessions-", install: true });
  createUser(createSqliteAuthStore(rt.handle.sqlite), { ...ADMIN, role: "admin", nowMs: rt.clock.now() });
});
afterEach(() => rt.dispose());

describe("restore keeps the current sign-in sessions", () => {
  it("a session revoked after the backup stays revoked after restoring it", async () => {
    const before = await signIn(ADMIN);
    const name = await backUp(before);
    expect((await logoutPost(post("/api/v1/auth/logout", before))).status).toBe(204);
    expect(await me(before)).toBe(401);
    const operator = await signIn(ADMIN);
    await restore(operator, name);
    expect(await me(before)).toBe(401);
  });

  it("a session started after the backup is still valid after restoring it", async () => {
    const name = await backUp(await signIn(ADMIN));
    const after = await signIn(ADMIN);
    await restore(after, name);
    expect(await me(after)).toBe(200);
    expect(await me(await signIn(ADMIN))).toBe(200);
  });

  it("a session of a user the backup does not have ends with the restore", async () => {
    const name = await backUp(await signIn(ADMIN));
    createUser(createSqliteAuthStore(rt.handle.sqlite), { ...LATER, role: "viewer", nowMs: rt.clock.now() });
    const later = await signIn(LATER);
    expect(await me(later)).toBe(200);
    await restore(await signIn(ADMIN), name);
    expect(await me(later)).toBe(401);
  });
});
