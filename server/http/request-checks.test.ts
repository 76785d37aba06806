// Attack-shaped requests against the route wrapper's first steps (#26 items
// 5 and 7): DNS rebinding, cross-site requests without Origin, non-JSON
// bodies, and anonymous reads while the engine is unsupported.
import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { GET as logsGet } from "@/app/api/v1/system/logs/route";
import { GET as statsGet } from "@/app/api/v1/system/database/stats/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { createTestRuntime } from "@/server/runtime-test-support";
import { createUser } from "@/server/auth/users";
import { isAllowedHost, parseAllowedHosts } from "./allowed-hosts";
import { AS_ADMIN, BASE_URL, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "./route-test-support";

let env: RouteTestEnv;
beforeEach(async () => {
  env = await setUpRouteTestEnv("request-checks-");
});
afterEach(async () => env.dispose());

const ADMIN = { email: "owner@example.com", password: "correct horse battery" };

function countSessions(): number {
  return (env.rt.handle.sqlite.prepare("select count(*) as n from auth_sessions").get() as { n: number }).n;
}

function login(headers: Record<string, string>, body: string = JSON.stringify(ADMIN)): Promise<Response> {
  return loginPost(new Request(`${BASE_URL}/api/v1/auth/login`, { method: "POST", headers, body }));
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe("ALLOWED_HOSTS (DNS rebinding)", () => {
  it("[#26-7] a rebinding page (Host and Origin both the attacker's name) is refused before sign-in runs", async () => {
    await createUser(env.rt.stores.auth, { ...ADMIN, role: "admin", nowMs: Date.now() });
    const before = countSessions();
    const response = await login({ host: "rebind.attacker.example:3000", origin: "http://rebind.attacker.example:3000", "content-type": "application/json" });
    expect(response.status).toBe(421);
    expect(await codeOf(response)).toBe("host_not_allowed");
    expect(countSessions()).toBe(before);
    // Reads too: a rebinding page must not read anything an anonymous client could.
    expect((await meGet(new Request(`${BASE_URL}/api/v1/auth/me`, { headers: { host: "rebind.attacker.example" } }))).status).toBe(421);
  });

  it("[#26-7] the default serves localhost and literal addresses; a listed name is served", async () => {
    const defaults = parseAllowedHosts(undefined).hosts;
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:3000", "[::1]:3000", "10.1.2.3", "LOCALHOST."]) expect(isAllowedHost(host, defaults)).toBe(true);
    for (const host of ["example.com", "127.0.0.1.nip.io", "localhost.attacker.example", "[::1", "a b", "localhost:x", "1.2.3.4.5", "300.1.1.1"]) {
      expect(isAllowedHost(host, defaults)).toBe(false);
    }
    const listed = parseAllowedHosts("retention.example.com, .corp.example, bad host").hosts;
    expect(isAllowedHost("retention.example.com:443", listed)).toBe(true);
    expect(isAllowedHost("a.corp.example", listed)).toBe(true);
    expect(isAllowedHost("corp.example.attacker.example", listed)).toBe(false);
    expect(parseAllowedHosts("retention.example.com, bad host").invalid).toEqual(["bad host"]);
    expect(isAllowedHost("anything.example", parseAllowedHosts("*").hosts)).toBe(true);
  });

  it("a configured name is served through the wrapper", async () => {
    await env.dispose();
    env = await setUpRouteTestEnv("request-checks-", { env: { ALLOWED_HOSTS: "retention.example.com" } });
    const me = await meGet(new Request(`${BASE_URL}/api/v1/auth/me`, { headers: { host: "retention.example.com", cookie: AS_ADMIN } }));
    expect(me.status).toBe(200);
  });
});

describe("cross-site mutations", () => {
  it("[#26-7] Sec-Fetch-Site cross-site or same-site without an Origin header is refused", async () => {
    for (const site of ["cross-site", "same-site"]) {
      const response = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST", headers: { cookie: AS_ADMIN, "sec-fetch-site": site } }));
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe("cross_origin");
    }
    // The session survived both attempts.
    expect((await meGet(new Request(`${BASE_URL}/api/v1/auth/me`, { headers: { cookie: AS_ADMIN } }))).status).toBe(200);
    const sameOrigin = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST", headers: { cookie: AS_ADMIN, "sec-fetch-site": "same-origin" } }));
    expect(sameOrigin.status).toBe(204);
  });

  it("[#26-7] a body that is not declared application/json is refused with 415 and never parsed", async () => {
    await createUser(env.rt.stores.auth, { ...ADMIN, role: "admin", nowMs: Date.now() });
    const before = countSessions();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "text/json"]) {
      const response = await login({ "content-type": type, origin: BASE_URL });
      expect(response.status).toBe(415);
      expect(await codeOf(response)).toBe("unsupported_media_type");
    }
    // Not even a body without a type: a form that strips it gets no further.
    const text = JSON.stringify(ADMIN);
    const untyped = await loginPost(new Request(`${BASE_URL}/api/v1/auth/login`, { method: "POST", headers: { "content-length": String(text.length) }, body: new Blob([text]) }));
    expect(untyped.status).toBe(415);
    expect(countSessions()).toBe(before);
    const ok = await login({ "content-type": "application/json; charset=utf-8", origin: BASE_URL });
    expect(ok.status).toBe(200);
  });

  it("[#26-7] an empty form POST (it names its type) is refused; a bodiless request without a type passes", async () => {
    const form = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST", headers: { cookie: AS_ADMIN, "content-type": "application/x-www-form-urlencoded", "content-length": "0" } }));
    expect(form.status).toBe(415);
    const bare = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST", headers: { cookie: AS_ADMIN } }));
    expect(bare.status).toBe(204);
  });

  it("[#26-7] without Origin and Sec-Fetch-Site (not a browser) a JSON mutation is judged by its session like any other", async () => {
    const anonymous = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST" }));
    expect(anonymous.status).toBe(401);
    const signedIn = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST", headers: { cookie: AS_ADMIN } }));
    expect(signedIn.status).toBe(204);
  });
});

describe("the session check comes first, whatever the engine's state", () => {
  async function unreachablePostgres(): Promise<string> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return `postgres://user:secret@127.0.0.1:${port}/db`;
  }

  it("[#26-5] an anonymous GET /api/v1/system/logs while PostgreSQL is unreachable answers 401, not the log ring", async () => {
    env.useUnsupportedEngine(await unreachablePostgres());
    const logs = await logsGet(apiRequest("GET", "/api/v1/system/logs", null));
    expect(logs.status).toBe(401);
    const text = await logs.text();
    expect(text).not.toContain("entries");
    for (const handler of [statsGet, auditGet, meGet]) {
      const response = await handler(apiRequest("GET", "/api/v1/x", null));
      expect(response.status).toBe(401);
    }
  });

  it("[#26-5] with a session cookie that cannot be checked, data routes still answer nothing; data-free capability reads answer", async () => {
    env.useUnsupportedEngine(await unreachablePostgres());
    const logs = await logsGet(apiRequest("GET", "/api/v1/system/logs", AS_ADMIN));
    expect(logs.status).toBe(501);
    expect(await codeOf(logs)).toBe("unsupported_engine");
    const stats = await statsGet(apiRequest("GET", "/api/v1/system/database/stats", AS_ADMIN));
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual({ capability: "unsupported" });
  });

  it("[#26-5] an anonymous mutation is 401 before its Origin is even looked at", async () => {
    const response = await logoutPost(new Request(`${BASE_URL}/api/v1/auth/logout`, { method: "POST", headers: { origin: "https://evil.example" } }));
    expect(response.status).toBe(401);
  });
});

describe("a runtime of its own", () => {
  it("HSTS is never sent over plain http", async () => {
    const rt = createTestRuntime({ prefix: "request-checks-hsts-", install: true });
    try {
      const me = await meGet(new Request(`${BASE_URL}/api/v1/auth/me`, { headers: { "x-forwarded-proto": "https" } }));
      expect(me.headers.get("strict-transport-security")).toBeNull();
    } finally {
      await rt.dispose();
    }
  });
});
