import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { PEER_ADDRESS_HEADER, installPeerAddressStamp } from "@/server/http/peer-address";
import { route } from "@/server/http/route";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { createUser } from "./users";
import { createSqliteAuthStore } from "./sqlite-store";

const BASE = "http://localhost:3000";
const ADMIN = { email: "admin@example.com", password: "admin-password" };
const VIEWER = { email: "viewer@example.com", password: "viewer-password" };

// A mutation on a member route: only admins may call it.
const memberMutation = route({ access: "member", handler: () => ({ ok: true }) });

function loginRequest(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: BASE, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function cookieFrom(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  return header.split(";")[0] ?? "";
}

async function signIn(user: { email: string; password: string }): Promise<string> {
  const response = await loginPost(loginRequest(user));
  expect(response.status).toBe(200);
  return cookieFrom(response);
}

let rt: TestRuntime;

function countRows(table: string): number {
  return (rt.handle.sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
}

describe("auth routes", () => {
  beforeEach(async () => {
    rt = createTestRuntime({ prefix: "auth-routes-", install: true });
    await createUser(createSqliteAuthStore(rt.handle), { ...ADMIN, role: "admin", nowMs: Date.now() });
    await createUser(createSqliteAuthStore(rt.handle), { ...VIEWER, role: "viewer", nowMs: Date.now() });
  });
  afterEach(async () => rt.dispose());

  it("anonymous requests get 401", async () => {
    const me = await meGet(new Request(`${BASE}/api/v1/auth/me`));
    expect(me.status).toBe(401);
    expect((await me.json()).error.code).toBe("unauthenticated");
    const logout = await logoutPost(new Request(`${BASE}/api/v1/auth/logout`, { method: "POST" }));
    expect(logout.status).toBe(401);
  });

  it("login sets an HttpOnly SameSite=Lax session cookie and /me returns the user", async () => {
    const response = await loginPost(loginRequest(ADMIN));
    expect(response.status).toBe(200);
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^wsr_session=[A-Za-z0-9_-]{40,};/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).not.toContain("Secure");
    const me = await meGet(new Request(`${BASE}/api/v1/auth/me`, { headers: { cookie: cookieFrom(response) } }));
    expect(me.status).toBe(200);
    expect((await me.json()).user).toMatchObject({ email: ADMIN.email, role: "admin" });
    // The token is never stored, only its hash.
    const token = cookieFrom(response).split("=")[1]!;
    const stored = rt.handle.sqlite.prepare(`select token_hash from auth_sessions`).all() as { token_hash: string }[];
    expect(stored.map((r) => r.token_hash)).not.toContain(token);
  });

  it("the cookie is Secure and __Host- named when a trusted proxy says the request came over https", async () => {
    installPeerAddressStamp();
    await rt.dispose();
    rt = createTestRuntime({ prefix: "auth-routes-", install: true, env: { TRUSTED_PROXIES: "10.0.0.1" } });
    await createUser(createSqliteAuthStore(rt.handle), { ...ADMIN, role: "admin", nowMs: Date.now() });
    const https = { "x-forwarded-proto": "https", host: "localhost:3000", origin: "https://localhost:3000", [PEER_ADDRESS_HEADER]: "10.0.0.1" };
    const response = await loginPost(loginRequest(ADMIN, https));
    expect(response.status).toBe(200);
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^__Host-wsr_session=[A-Za-z0-9_-]{40,}; Path=\/;/);
    expect(setCookie).toContain("Secure");
    expect(setCookie).not.toMatch(/Domain=/i);
    expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const token = cookieFrom(response).split("=")[1]!;
    const me = (cookie: string) => meGet(new Request(`${BASE}/api/v1/auth/me`, { headers: { cookie, ...https } }));
    expect((await me(`__Host-wsr_session=${token}`)).status).toBe(200);
    // Over https a plain-named cookie may have been tossed in by another host or over http: not read.
    expect((await me(`wsr_session=${token}`)).status).toBe(401);
  });

  it("X-Forwarded-Proto from a client that is not a trusted proxy changes nothing", async () => {
    installPeerAddressStamp();
    const response = await loginPost(loginRequest(ADMIN, { "x-forwarded-proto": "https", [PEER_ADDRESS_HEADER]: "203.0.113.9" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/^wsr_session=/);
    expect(response.headers.get("set-cookie")).not.toContain("Secure");
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });

  it("wrong password and unknown email get the same generic 401", async () => {
    const wrong = await loginPost(loginRequest({ ...ADMIN, password: "nope-nope" }));
    const unknown = await loginPost(loginRequest({ email: "ghost@example.com", password: "nope-nope" }));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [a, b] = [await wrong.json(), await unknown.json()];
    expect(a).toEqual(b);
    expect(a.error.code).toBe("invalid_credentials");
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  it("[TPR-UI-16] a viewer gets 403 on a mutation, an admin does not", async () => {
    const viewerCookie = await signIn(VIEWER);
    const adminCookie = await signIn(ADMIN);
    const asViewer = await memberMutation(new Request(`${BASE}/x`, { method: "POST", headers: { cookie: viewerCookie } }));
    expect(asViewer.status).toBe(403);
    expect((await asViewer.json()).error.code).toBe("forbidden");
    const asAdmin = await memberMutation(new Request(`${BASE}/x`, { method: "POST", headers: { cookie: adminCookie } }));
    expect(asAdmin.status).toBe(200);
    const viewerRead = await meGet(new Request(`${BASE}/api/v1/auth/me`, { headers: { cookie: viewerCookie } }));
    expect(viewerRead.status).toBe(200);
  });

  it("a mutation from a foreign Origin gets 403 and creates no session", async () => {
    const response = await loginPost(loginRequest(ADMIN, { origin: "https://evil.example" }));
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe("cross_origin");
    expect(countRows("auth_sessions")).toBe(0);
    const adminCookie = await signIn(ADMIN);
    const logout = await logoutPost(
      new Request(`${BASE}/api/v1/auth/logout`, { method: "POST", headers: { cookie: adminCookie, origin: "https://evil.example" } }),
    );
    expect(logout.status).toBe(403);
    const me = await meGet(new Request(`${BASE}/api/v1/auth/me`, { headers: { cookie: adminCookie } }));
    expect(me.status).toBe(200);
  });

  it("logout revokes the session: the same cookie then gets 401", async () => {
    const cookie = await signIn(ADMIN);
    const logout = await logoutPost(new Request(`${BASE}/api/v1/auth/logout`, { method: "POST", headers: { cookie, origin: BASE } }));
    expect(logout.status).toBe(204);
    expect(logout.headers.get("set-cookie")).toMatch(/^wsr_session=; .*Max-Age=0/);
    const me = await meGet(new Request(`${BASE}/api/v1/auth/me`, { headers: { cookie } }));
    expect(me.status).toBe(401);
  });

  it("a bad login body is a 400 that changes nothing", async () => {
    const bodies = ["{not json", { email: ADMIN.email }, { ...ADMIN, extra: 1 }, { email: 1, password: 2 }, []];
    for (const body of bodies) {
      const response = await loginPost(loginRequest(body));
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe("invalid_request");
    }
    expect(countRows("auth_sessions")).toBe(0);
    expect(countRows("login_throttle")).toBe(0);
  });
});
