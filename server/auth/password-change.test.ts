// A reset password through the real routes: the user's sessions end, the
// old password stops working, the temporary one signs in to a session that
// can do nothing but change it, and the change ends the user's other sessions.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { GET as meGet } from "@/app/api/v1/auth/me/route";
import { POST as passwordPost } from "@/app/api/v1/auth/password/route";
import { GET as eventsGet } from "@/app/api/v1/system/events/route";
import { GET as tasksGet } from "@/app/api/v1/tasks/route";
import { POST as resetPost } from "@/app/api/v1/users/[id]/password-reset/route";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { auditPageSchema } from "@/lib/audit/api";
import { meResponseSchema } from "@/lib/auth/api";
import { AS_ADMIN, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { createUser } from "./users";

const EMAIL = "reset@example.com";
const OLD = "the-old-password-1";
const TEMPORARY = "temporary-password-42";
const CHOSEN = "my-own-new-passphrase";

let env: RouteTestEnv;
let userId: string;
beforeEach(async () => {
  env = await setUpRouteTestEnv("password-change-");
  userId = (await createUser(env.rt.stores.auth, { email: EMAIL, role: "viewer", password: OLD, nowMs: env.rt.clock.now() })).id;
});
afterEach(async () => env.dispose());

async function signIn(password: string): Promise<{ status: number; cookie: string; body: unknown }> {
  const res = await loginPost(apiRequest("POST", "/api/v1/auth/login", null, { email: EMAIL, password }));
  return { status: res.status, cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]!, body: await res.json() };
}
const as = (cookie: string) => cookie as never;
const change = (cookie: string, currentPassword: string, newPassword: string) =>
  passwordPost(apiRequest("POST", "/api/v1/auth/password", as(cookie), { currentPassword, newPassword }));
const reset = () => resetPost(apiRequest("POST", "/", AS_ADMIN, { temporaryPassword: TEMPORARY }), { params: Promise.resolve({ id: userId }) });

describe("password reset and the forced change", () => {
  it("ends the user's sessions, retires the old password and admits the temporary one only to change it", async () => {
    const before = await signIn(OLD);
    expect(before.status).toBe(200);
    const res = await reset();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ endedSessions: 1, account: { mustChangePassword: true } });
    expect((await meGet(apiRequest("GET", "/", as(before.cookie)))).status).toBe(401);
    expect((await signIn(OLD)).status).toBe(401);

    const temp = await signIn(TEMPORARY);
    expect(temp.status).toBe(200);
    expect(meResponseSchema.parse(temp.body).user.mustChangePassword).toBe(true);
    // Only "who am I", sign-out and the change answer; everything else says why not.
    const me = await meGet(apiRequest("GET", "/", as(temp.cookie)));
    expect(meResponseSchema.parse(await me.json()).user).toMatchObject({ email: EMAIL, mustChangePassword: true });
    for (const blocked of [tasksGet(apiRequest("GET", "/", as(temp.cookie))), eventsGet(apiRequest("GET", "/", as(temp.cookie)))]) {
      const answer = await blocked;
      expect(answer.status).toBe(403);
      expect((await answer.json()).error.code).toBe("password_change_required");
    }

    // Wrong current password, the same password again, a weak one: refused, nothing changes.
    const wrong = await change(temp.cookie, "not-the-temporary", CHOSEN);
    expect([wrong.status, (await wrong.json()).error.code]).toEqual([400, "wrong_current_password"]);
    const same = await change(temp.cookie, TEMPORARY, TEMPORARY);
    expect([same.status, (await same.json()).passwordProblem]).toEqual([400, "same_as_current"]);
    const weak = await change(temp.cookie, TEMPORARY, "123456789012");
    expect([weak.status, (await weak.json()).passwordProblem]).toEqual([400, "common"]);
    expect((await tasksGet(apiRequest("GET", "/", as(temp.cookie)))).status).toBe(403);

    const second = await signIn(TEMPORARY);
    const done = await change(temp.cookie, TEMPORARY, CHOSEN);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ endedSessions: 1, account: { mustChangePassword: false } });
    // The session that changed it goes on, now unrestricted; the other one ended.
    expect((await tasksGet(apiRequest("GET", "/", as(temp.cookie)))).status).toBe(200);
    expect((await meGet(apiRequest("GET", "/", as(second.cookie)))).status).toBe(401);
    expect((await signIn(TEMPORARY)).status).toBe(401);
    expect((await signIn(CHOSEN)).status).toBe(200);
    expect((await logoutPost(apiRequest("POST", "/", as(temp.cookie)))).status).toBe(204);

    const audit = auditPageSchema.parse(await (await auditGet(apiRequest("GET", "/api/v1/system/audit", AS_ADMIN))).json()).entries;
    const trail = audit.filter((e) => e.kind.startsWith("user.")).map((e) => [e.kind, e.actor, e.result, e.errorCode ?? e.detail.sessions]);
    expect(trail).toEqual([
      ["user.password_changed", userId, "ok", 1],
      ["user.password_changed", userId, "failed", "invalid_request"],
      ["user.password_changed", userId, "failed", "invalid_request"],
      ["user.password_changed", userId, "failed", "wrong_current_password"],
      ["user.password_reset", "u-admin", "ok", 1],
    ]);
    expect(JSON.stringify(audit)).not.toMatch(new RegExp(`${TEMPORARY}|${CHOSEN}|${OLD}`));
  });

  it("throttles guesses at the current password like sign-ins: a stolen cookie cannot try it at speed", async () => {
    const session = await signIn(OLD);
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push((await change(session.cookie, `guess-number-${i}-xx`, CHOSEN)).status);
    // Three free failures, then the account's delay applies to this address.
    expect(answers).toEqual([400, 400, 400, 429, 429, 429]);
    const right = await change(session.cookie, OLD, CHOSEN);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
