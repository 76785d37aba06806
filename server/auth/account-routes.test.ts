// Account lifecycle through the real routes, as an attacker and an admin
// would use them: a disabled user's cookie stops working at once, a demoted
// admin loses mutations on their next request, a reset password ends every
// session, the last enabled admin cannot be removed, viewers get nothing.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { GET as listGet, POST as createPost } from "@/app/api/v1/users/route";
import { POST as disablePost } from "@/app/api/v1/users/[id]/disable/route";
import { POST as enablePost } from "@/app/api/v1/users/[id]/enable/route";
import { PUT as rolePut } from "@/app/api/v1/users/[id]/role/route";
import { POST as resetPost } from "@/app/api/v1/users/[id]/password-reset/route";
import { DELETE as sessionsDelete, GET as sessionsGet } from "@/app/api/v1/users/[id]/sessions/route";
import { DELETE as sessionDelete } from "@/app/api/v1/users/[id]/sessions/[sessionId]/route";
import { accountChangeSchema, accountListSchema, sessionListSchema } from "@/lib/accounts/api";
import { auditPageSchema } from "@/lib/audit/api";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { AS_ADMIN, AS_VIEWER, BASE_URL, apiRequest, setUpEngineRouteTestEnv, type EngineRouteTestEnv } from "@/server/http/route-test-support";
import { SESSION_COOKIE } from "./current-user";
import { createSession } from "./sessions";
import { createUser } from "./users";

type Handler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

const PASSWORD = "a-long-enough-password";
const TEMPORARY = "temporary-password-42";

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`account lifecycle [${engine}]`, () => {
    let env: EngineRouteTestEnv;
    beforeEach(async () => {
      env = await setUpEngineRouteTestEnv(engine, "account-routes-");
    });
    afterEach(async () => env.dispose());

    const call = (handler: Handler, method: string, url: string, who: string | null, body?: unknown, params: Record<string, string> = {}) =>
      handler(apiRequest(method, url, who as never, body), { params: Promise.resolve(params) });

    /** A user with a live session (no sign-in, no KDF for the session): returns its id and cookie. */
    async function member(email: string, role: "admin" | "viewer") {
      const { id } = await createUser(env.rt.stores.auth, { email, role, password: PASSWORD, nowMs: env.rt.clock.now() });
      return { id, cookie: await cookieOf(id) };
    }
    const cookieOf = async (userId: string) => `${SESSION_COOKIE}=${(await createSession(env.rt.stores.auth, { userId, nowMs: env.rt.clock.now() })).token}`;
    const me = (cookie: string) => meGet(apiRequest("GET", "/api/v1/auth/me", cookie as never));
    const login = (email: string, password: string) => loginPost(apiRequest("POST", "/api/v1/auth/login", null, { email, password }));
    const disable = (id: string, who = AS_ADMIN) => call(disablePost, "POST", `/api/v1/users/${id}/disable`, who, undefined, { id });
    const role = (id: string, next: "admin" | "viewer", who = AS_ADMIN) => call(rolePut, "PUT", `/api/v1/users/${id}/role`, who, { role: next }, { id });
    const audit = async (kind: string, who: string = AS_ADMIN) => {
      const res = await auditGet(apiRequest("GET", `/api/v1/system/audit?kind=${kind}`, who as never));
      return auditPageSchema.parse(await res.json()).entries;
    };
    const userRow = async (id: string) => (await env.sql.all<{ role: string; disabled: number | null }>(`select role, disabled_at_ms as disabled from users where id = ?`, [id]))[0];

    it("answers a viewer 403 and an anonymous client 401 on every account route, and changes nothing", async () => {
      const target = await member("target@example.com", "viewer");
      const params = { id: target.id };
      const routes: [Handler, string, string, unknown, Record<string, string>][] = [
        [listGet, "GET", "/api/v1/users", undefined, {}],
        [createPost, "POST", "/api/v1/users", { email: "new@example.com", role: "admin", temporaryPassword: TEMPORARY }, {}],
        [disablePost, "POST", `/api/v1/users/${target.id}/disable`, undefined, params],
        [enablePost, "POST", `/api/v1/users/${target.id}/enable`, undefined, params],
        [rolePut, "PUT", `/api/v1/users/${target.id}/role`, { role: "admin" }, params],
        [resetPost, "POST", `/api/v1/users/${target.id}/password-reset`, { temporaryPassword: TEMPORARY }, params],
        [sessionsGet, "GET", `/api/v1/users/${target.id}/sessions`, undefined, params],
        [sessionsDelete, "DELETE", `/api/v1/users/${target.id}/sessions`, undefined, params],
        [sessionDelete, "DELETE", `/api/v1/users/${target.id}/sessions/${"0".repeat(32)}`, undefined, { ...params, sessionId: "0".repeat(32) }],
      ];
      for (const [handler, method, url, body, p] of routes) {
        const asViewer = await call(handler, method, url, AS_VIEWER, body, p);
        expect([url, asViewer.status, (await asViewer.json()).error.code]).toEqual([url, 403, "forbidden"]);
        const anonymous = await call(handler, method, url, null, body, p);
        expect([url, anonymous.status]).toEqual([url, 401]);
      }
      expect(await userRow(target.id)).toEqual({ role: "viewer", disabled: null });
      expect((await me(target.cookie)).status).toBe(200);
      expect(await env.sql.all(`select id from users where email = 'new@example.com'`)).toEqual([]);
    });

    it("lists accounts with their state for admins, never a hash", async () => {
      await member("zed@example.com", "viewer");
      const res = await call(listGet, "GET", "/api/v1/users", AS_ADMIN);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toMatch(/scrypt|password_hash|passwordHash|token/i);
      const list = accountListSchema.parse(JSON.parse(text));
      expect(list.selfId).toBe("u-admin");
      expect(list.idleTimeoutMinutes).toBeNull();
      expect(list.accounts.map((a) => [a.email, a.role, a.status, a.liveSessions])).toEqual([
        ["admin@example.com", "admin", "active", 1],
        ["viewer@example.com", "viewer", "active", 1],
        ["zed@example.com", "viewer", "active", 1],
      ]);
    });

    it("disabling ends the user's sessions at once: the cookie answers 401 and the right password 403 account_disabled", async () => {
      const victim = await member("victim@example.com", "admin");
      const second = await cookieOf(victim.id);
      expect((await me(victim.cookie)).status).toBe(200);
      const res = await disable(victim.id);
      expect(res.status).toBe(200);
      const change = accountChangeSchema.parse(await res.json());
      expect(change).toMatchObject({ changed: true, endedSessions: 2, account: { status: "disabled", liveSessions: 0 } });
      for (const cookie of [victim.cookie, second]) {
        const after = await me(cookie);
        expect(after.status).toBe(401);
        expect((await after.json()).error.code).toBe("unauthenticated");
      }
      const signIn = await login("victim@example.com", PASSWORD);
      expect(signIn.status).toBe(403);
      expect((await signIn.json()).error.code).toBe("account_disabled");
      expect(signIn.headers.get("set-cookie")).toBeNull();
      // A wrong password still gets the generic answer: nothing says the account exists.
      expect((await login("victim@example.com", "wrong-password-here")).status).toBe(401);
      // Twice is a no-op that records nothing more.
      expect(accountChangeSchema.parse(await (await disable(victim.id)).json()).changed).toBe(false);
      const entries = await audit("user.disabled");
      expect(entries.map((e) => [e.actor, e.result, e.detail, e.subjectEmail])).toEqual([["u-admin", "ok", { userId: victim.id, sessions: 2 }, "victim@example.com"]]);

      const enabled = await call(enablePost, "POST", `/api/v1/users/${victim.id}/enable`, AS_ADMIN, undefined, { id: victim.id });
      expect(accountChangeSchema.parse(await enabled.json()).account.status).toBe("active");
      // Ended sessions stay ended; signing in works again.
      expect((await me(victim.cookie)).status).toBe(401);
      expect((await login("victim@example.com", PASSWORD)).status).toBe(200);
      expect((await audit("user.enabled")).length).toBe(1);
    });

    it("the last enabled admin can be neither disabled nor demoted, by anyone, and the refusal is audited", async () => {
      for (const attempt of [() => disable("u-admin"), () => role("u-admin", "viewer")]) {
        const res = await attempt();
        expect(res.status).toBe(409);
        expect((await res.json()).error.code).toBe("last_admin");
      }
      expect(await userRow("u-admin")).toEqual({ role: "admin", disabled: null });
      // A disabled admin does not count as the other admin.
      const dormant = await member("dormant@example.com", "admin");
      expect((await disable(dormant.id)).status).toBe(200);
      expect((await role("u-admin", "viewer")).status).toBe(409);
      // With a second enabled admin, one may go; then the other is the last.
      const other = await member("other-admin@example.com", "admin");
      expect((await role("u-admin", "viewer", other.cookie)).status).toBe(200);
      expect((await disable(other.id, other.cookie)).status).toBe(409);
      expect(await userRow(other.id)).toEqual({ role: "admin", disabled: null });
      const refusals = [...(await audit("user.disabled", other.cookie)), ...(await audit("user.role_changed", other.cookie))].filter((e) => e.result === "failed");
      expect(refusals.map((e) => e.errorCode)).toEqual(["last_admin", "last_admin", "last_admin", "last_admin"]);
    });

    it("a role change applies on the user's next request with the same cookie", async () => {
      const promoted = await member("promoted@example.com", "viewer");
      const mutate = (cookie: string) => backupsCreate(apiRequest("POST", "/api/v1/system/database/backups", cookie as never, {}));
      expect((await mutate(promoted.cookie)).status).toBe(403);
      const up = await role(promoted.id, "admin");
      expect(accountChangeSchema.parse(await up.json())).toMatchObject({ changed: true, account: { role: "admin" } });
      expect((await me(promoted.cookie)).status).toBe(200);
      expect((await call(listGet, "GET", "/api/v1/users", promoted.cookie)).status).toBe(200);
      expect((await role(promoted.id, "viewer")).status).toBe(200);
      expect((await call(listGet, "GET", "/api/v1/users", promoted.cookie)).status).toBe(403);
      expect((await audit("user.role_changed")).map((e) => e.detail)).toEqual([
        { userId: promoted.id, role: "viewer", previousRole: "admin" },
        { userId: promoted.id, role: "admin", previousRole: "viewer" },
      ]);
    });

    it("lists a user's sessions and ends one or all of them; another user's session id is not found", async () => {
      const user = await member("many@example.com", "viewer");
      const other = await cookieOf(user.id);
      const list = sessionListSchema.parse(await (await call(sessionsGet, "GET", `/api/v1/users/${user.id}/sessions`, AS_ADMIN, undefined, { id: user.id })).json());
      expect(list.sessions).toHaveLength(2);
      expect(list.sessions.every((s) => /^[0-9a-f]{32}$/.test(s.id) && !s.current)).toBe(true);
      const own = sessionListSchema.parse(await (await call(sessionsGet, "GET", `/api/v1/users/u-admin/sessions`, AS_ADMIN, undefined, { id: "u-admin" })).json());
      expect(own.sessions.map((s) => s.current)).toEqual([true]);

      // The admin's own session id under another user's path: 404, nothing ended.
      const foreign = await call(sessionDelete, "DELETE", `/api/v1/users/${user.id}/sessions/${own.sessions[0]!.id}`, AS_ADMIN, undefined, { id: user.id, sessionId: own.sessions[0]!.id });
      expect(foreign.status).toBe(404);
      expect((await me(AS_ADMIN)).status).toBe(200);
      const malformed = await call(sessionDelete, "DELETE", `/api/v1/users/${user.id}/sessions/x`, AS_ADMIN, undefined, { id: user.id, sessionId: "../x" });
      expect(malformed.status).toBe(400);

      // Which cookie belongs to the first listed session is not known here: end it, then exactly one cookie is gone.
      const ended = await call(sessionDelete, "DELETE", "/", AS_ADMIN, undefined, { id: user.id, sessionId: list.sessions[0]!.id });
      expect(ended.status).toBe(200);
      const statuses = await Promise.all([user.cookie, other].map(async (cookie) => (await me(cookie)).status));
      expect(statuses.sort()).toEqual([200, 401]);
      const all = await call(sessionsDelete, "DELETE", "/", AS_ADMIN, undefined, { id: user.id });
      expect(await all.json()).toEqual({ endedSessions: 1 });
      for (const cookie of [user.cookie, other]) expect((await me(cookie)).status).toBe(401);
      // The attempt on a foreign session id is recorded as refused.
      expect((await audit("user.sessions_ended")).map((e) => [e.result, e.errorCode, e.detail.sessions])).toEqual([
        ["ok", null, 1],
        ["ok", null, 1],
        ["failed", "not_found", undefined],
      ]);
    });

    it("refuses malformed bodies and unknown users without changing anything", async () => {
      const user = await member("body@example.com", "viewer");
      for (const body of [{ role: "root" }, { role: "admin", extra: true }, "{", []]) {
        const res = await call(rolePut, "PUT", "/", AS_ADMIN, body, { id: user.id });
        expect(res.status).toBe(400);
      }
      expect((await call(resetPost, "POST", "/", AS_ADMIN, { temporaryPassword: "" }, { id: user.id })).status).toBe(400);
      expect((await disable("no-such-user")).status).toBe(404);
      expect((await call(disablePost, "POST", "/", AS_ADMIN, undefined, { id: "x".repeat(101) })).status).toBe(400);
      expect(await userRow(user.id)).toEqual({ role: "viewer", disabled: null });
    });

    it("creates an account whose temporary password must be replaced, refusing weak passwords and taken emails", async () => {
      const weak = await call(createPost, "POST", "/", AS_ADMIN, { email: "new@example.com", role: "viewer", temporaryPassword: "short" });
      expect(weak.status).toBe(400);
      expect(await weak.json()).toMatchObject({ passwordProblem: "too_short", error: { code: "invalid_request" } });
      const created = await call(createPost, "POST", "/", AS_ADMIN, { email: " New@Example.com ", role: "viewer", temporaryPassword: TEMPORARY });
      expect(created.status).toBe(201);
      expect(accountChangeSchema.parse(await created.json()).account).toMatchObject({ email: "new@example.com", mustChangePassword: true, liveSessions: 0 });
      const again = await call(createPost, "POST", "/", AS_ADMIN, { email: "new@example.com", role: "admin", temporaryPassword: TEMPORARY });
      expect(again.status).toBe(409);
      const entries = await audit("user.created");
      expect(entries.map((e) => [e.result, e.errorCode, e.detail.role])).toEqual([
        ["failed", "conflict", "admin"],
        ["ok", null, "viewer"],
        ["failed", "invalid_request", "viewer"],
      ]);
      expect(JSON.stringify(entries)).not.toContain(TEMPORARY);
      expect(BASE_URL).toContain("localhost");
    });
  });
}
