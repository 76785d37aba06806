// The AuthStore contract, one suite run on every engine.
import { expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";

const DAY = 86_400_000;
const MIN = 60_000;
const NOW = 1_790_000_000_000; // epoch milliseconds, beyond 32-bit integers
const IDLE = 30 * MIN;
const at = (nowMs: number) => ({ nowMs, idleSinceMs: nowMs - IDLE });

describeEachEngine("AuthStore", ({ db }) => {
  const user = (id: string, email: string, role: "admin" | "viewer" = "admin") => ({ id, email, role, passwordHash: `hash-${id}`, createdAt: "2026-01-01T00:00:00Z" });
  const session = (tokenHash: string, id: string, userId: string, createdAtMs = NOW, expiresAtMs = NOW + DAY) => ({
    tokenHash,
    id,
    userId,
    createdAtMs,
    expiresAtMs,
    client: "Firefox · Linux",
  });

  it("inserts users, finds them by email and id, and reports a taken email without breaking the transaction", async () => {
    const store = db().auth();
    expect(await store.countUsers()).toBe(0);
    const outcome = await store.writeTransaction(async (tx) => {
      expect(await tx.insertUser(user("u1", "a@example.com"))).toBe("inserted");
      const taken = await tx.insertUser(user("u2", "a@example.com"));
      // The transaction goes on after the refusal.
      expect(await tx.insertUser({ ...user("u3", "b@example.com"), mustChangePassword: true })).toBe("inserted");
      return taken;
    });
    expect(outcome).toBe("email_taken");
    expect(await store.countUsers()).toBe(2);
    const expected = { id: "u1", email: "a@example.com", role: "admin", passwordHash: "hash-u1", createdAt: "2026-01-01T00:00:00Z", disabledAtMs: null, mustChangePassword: false };
    expect(await store.findUserByEmail("a@example.com")).toEqual(expected);
    expect(await store.findUserById("u1")).toEqual(expected);
    expect((await store.findUserById("u3"))?.mustChangePassword).toBe(true);
    expect(await store.findUserByEmail("nobody@example.com")).toBeNull();
    expect(await store.findUserById("nobody")).toBeNull();
  });

  it("rolls a throwing writer transaction back, nested calls included", async () => {
    const store = db().auth();
    await expect(store.writeTransaction(async (tx) => {
        await tx.insertUser(user("u1", "a@example.com"));
        await tx.writeTransaction((inner) => inner.insertUser(user("u2", "b@example.com")));
        throw new Error("abort");
      })).rejects.toThrow("abort");
    expect(await store.countUsers()).toBe(0);
  });

  it("updates role, disabled state, hash and the must-change mark, and counts enabled admins", async () => {
    const store = db().auth();
    await store.insertUser(user("u1", "a@example.com"));
    await store.insertUser(user("u2", "b@example.com"));
    await store.insertUser(user("u3", "c@example.com", "viewer"));
    expect(await store.countEnabledAdmins()).toBe(2);
    expect(await store.updateUser({ id: "u1", disabledAtMs: NOW })).toBe(true);
    expect(await store.countEnabledAdmins()).toBe(1);
    expect(await store.updateUser({ id: "u2", role: "viewer" })).toBe(true);
    expect(await store.countEnabledAdmins()).toBe(0);
    expect(await store.updateUser({ id: "u3", passwordHash: "new", mustChangePassword: true })).toBe(true);
    expect(await store.findUserById("u3")).toMatchObject({ passwordHash: "new", mustChangePassword: true, role: "viewer" });
    expect((await store.findUserById("u1"))?.disabledAtMs).toBe(NOW);
    expect(await store.updateUser({ id: "u1", disabledAtMs: null })).toBe(true);
    expect(await store.countEnabledAdmins()).toBe(1);
    expect(await store.updateUser({ id: "ghost", role: "admin" })).toBe(false);
    expect(await store.updateUser({ id: "ghost" })).toBe(false);
  });

  it("answers a session's user until it expires, idles out, is revoked or its user is disabled, then prunes it", async () => {
    const store = db().auth();
    await store.insertUser({ ...user("u1", "a@example.com"), role: "viewer" });
    await store.insertUser(user("u2", "b@example.com"));
    await store.insertSession(session("live", "s-live", "u1"));
    await store.insertSession(session("old", "s-old", "u1", NOW - 2 * DAY, NOW - DAY));
    await store.insertSession(session("gone", "s-gone", "u1"));
    await store.insertSession(session("other", "s-other", "u2"));

    expect(await store.sessionForToken({ tokenHash: "live", ...at(NOW) })).toEqual({
      id: "s-live",
      userId: "u1",
      createdAtMs: NOW,
      lastSeenAtMs: NOW,
      expiresAtMs: NOW + DAY,
      client: "Firefox · Linux",
      user: { id: "u1", email: "a@example.com", role: "viewer", mustChangePassword: false },
    });
    expect(await store.sessionForToken({ tokenHash: "live", ...at(NOW + DAY) })).toBeNull();
    expect(await store.sessionForToken({ tokenHash: "old", ...at(NOW) })).toBeNull();
    expect(await store.revokeSession({ tokenHash: "gone", nowMs: NOW })).toBe(true);
    expect(await store.revokeSession({ tokenHash: "gone", nowMs: NOW })).toBe(false);
    expect(await store.sessionForToken({ tokenHash: "gone", ...at(NOW) })).toBeNull();
    // Idle: 30 minutes without activity ends it; activity moves the window.
    expect(await store.sessionForToken({ tokenHash: "live", ...at(NOW + IDLE) })).toBeNull();
    await store.touchSession({ id: "s-live", nowMs: NOW + IDLE - MIN });
    expect((await store.sessionForToken({ tokenHash: "live", ...at(NOW + IDLE) }))?.lastSeenAtMs).toBe(NOW + IDLE - MIN);
    // A disabled user's sessions answer nothing, whatever their state.
    await store.updateUser({ id: "u2", disabledAtMs: NOW });
    expect(await store.sessionForToken({ tokenHash: "other", ...at(NOW) })).toBeNull();

    // Pruned at NOW + IDLE: old (expired), gone (revoked), other (idle since NOW); live was touched.
    expect(await store.pruneSessions(at(NOW + IDLE))).toBe(3);
    expect(await store.sessionForToken({ tokenHash: "live", ...at(NOW + IDLE) })).not.toBeNull();
  });

  it("lists and revokes one user's sessions by id, never another user's", async () => {
    const store = db().auth();
    await store.insertUser(user("u1", "a@example.com"));
    await store.insertUser(user("u2", "b@example.com"));
    await store.insertSession(session("t1", "s1", "u1", NOW - 2 * MIN));
    await store.insertSession(session("t2", "s2", "u1", NOW - MIN));
    await store.insertSession(session("t3", "s3", "u1", NOW));
    await store.insertSession(session("t4", "s4", "u2", NOW));
    expect((await store.listSessions({ userId: "u1", ...at(NOW) })).map((s) => s.id)).toEqual(["s3", "s2", "s1"]);
    expect(await store.revokeSessionById({ id: "s4", userId: "u1", nowMs: NOW })).toBe(false);
    expect(await store.revokeSessionById({ id: "s2", userId: "u1", nowMs: NOW })).toBe(true);
    expect(await store.revokeSessionById({ id: "s2", userId: "u1", nowMs: NOW })).toBe(false);
    expect(await store.revokeUserSessions({ userId: "u1", nowMs: NOW, exceptId: "s3" })).toBe(1);
    expect((await store.listSessions({ userId: "u1", ...at(NOW) })).map((s) => s.id)).toEqual(["s3"]);
    expect(await store.revokeUserSessions({ userId: "u1", nowMs: NOW })).toBe(1);
    expect(await store.listSessions({ userId: "u1", ...at(NOW) })).toEqual([]);
    expect((await store.sessionForToken({ tokenHash: "t4", ...at(NOW) }))?.id).toBe("s4");
  });

  it("lists users with their live session count and latest activity, and re-reads a set of sessions", async () => {
    const store = db().auth();
    await store.insertUser(user("u1", "b@example.com"));
    await store.insertUser(user("u2", "a@example.com", "viewer"));
    await store.insertSession(session("t1", "s1", "u1", NOW - MIN));
    await store.insertSession(session("t2", "s2", "u1", NOW - 2 * DAY, NOW - DAY));
    await store.insertSession(session("t3", "s3", "u2", NOW));
    const users = await store.listUsers(at(NOW));
    expect(users.map((u) => [u.email, u.liveSessions, u.lastSeenAtMs])).toEqual([
      ["a@example.com", 1, NOW],
      ["b@example.com", 1, NOW - MIN],
    ]);
    expect((await store.liveSessionsAmong({ ids: ["s1", "s2", "s3", "nope"], ...at(NOW) })).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: "s1", role: "admin" },
      { id: "s3", role: "viewer" },
    ]);
    expect(await store.liveSessionsAmong({ ids: [], ...at(NOW) })).toEqual([]);
    await store.updateUser({ id: "u2", role: "admin" });
    expect(await store.liveSessionsAmong({ ids: ["s3"], ...at(NOW) })).toEqual([{ id: "s3", role: "admin" }]);
    await store.updateUser({ id: "u2", disabledAtMs: NOW });
    expect(await store.liveSessionsAmong({ ids: ["s3"], ...at(NOW) })).toEqual([]);
  });

  it("saves, overwrites and clears throttle records", async () => {
    const store = db().auth();
    expect(await store.readThrottle("a@example.com")).toBeNull();
    await store.saveThrottle({ key: "a@example.com", failures: 1, windowStartMs: NOW, lockedUntilMs: null });
    await store.saveThrottle({ key: "a@example.com", failures: 5, windowStartMs: NOW, lockedUntilMs: NOW + 60_000 });
    expect(await store.readThrottle("a@example.com")).toEqual({ key: "a@example.com", failures: 5, windowStartMs: NOW, lockedUntilMs: NOW + 60_000 });
    await store.clearThrottle("a@example.com");
    expect(await store.readThrottle("a@example.com")).toBeNull();
  });
});
