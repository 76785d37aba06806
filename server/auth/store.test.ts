// The AuthStore contract, one suite run on every engine.
import { expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";

const DAY = 86_400_000;
const NOW = 1_790_000_000_000; // epoch milliseconds, beyond 32-bit integers

describeEachEngine("AuthStore", ({ db }) => {
  const user = (id: string, email: string) => ({ id, email, role: "admin" as const, passwordHash: `hash-${id}`, createdAt: "2026-01-01T00:00:00Z" });

  it("inserts users, finds them by email and reports a taken email without breaking the transaction", () => {
    const store = db().auth();
    expect(store.countUsers()).toBe(0);
    const outcome = store.writeTransaction((tx) => {
      expect(tx.insertUser(user("u1", "a@example.com"))).toBe("inserted");
      const taken = tx.insertUser(user("u2", "a@example.com"));
      // The transaction goes on after the refusal.
      expect(tx.insertUser(user("u3", "b@example.com"))).toBe("inserted");
      return taken;
    });
    expect(outcome).toBe("email_taken");
    expect(store.countUsers()).toBe(2);
    expect(store.findUserByEmail("a@example.com")).toEqual({ id: "u1", email: "a@example.com", role: "admin", passwordHash: "hash-u1" });
    expect(store.findUserByEmail("nobody@example.com")).toBeNull();
  });

  it("rolls a throwing writer transaction back, nested calls included", () => {
    const store = db().auth();
    expect(() =>
      store.writeTransaction((tx) => {
        tx.insertUser(user("u1", "a@example.com"));
        tx.writeTransaction((inner) => inner.insertUser(user("u2", "b@example.com")));
        throw new Error("abort");
      }),
    ).toThrow("abort");
    expect(store.countUsers()).toBe(0);
  });

  it("answers a session's user until it expires or is revoked, then prunes it", () => {
    const store = db().auth();
    store.insertUser({ ...user("u1", "a@example.com"), role: "viewer" });
    store.insertSession({ tokenHash: "live", userId: "u1", createdAtMs: NOW, expiresAtMs: NOW + DAY });
    store.insertSession({ tokenHash: "old", userId: "u1", createdAtMs: NOW - 2 * DAY, expiresAtMs: NOW - DAY });
    store.insertSession({ tokenHash: "gone", userId: "u1", createdAtMs: NOW, expiresAtMs: NOW + DAY });

    expect(store.userForSession({ tokenHash: "live", nowMs: NOW })).toEqual({ id: "u1", email: "a@example.com", role: "viewer" });
    expect(store.userForSession({ tokenHash: "live", nowMs: NOW + DAY })).toBeNull();
    expect(store.userForSession({ tokenHash: "old", nowMs: NOW })).toBeNull();
    expect(store.revokeSession({ tokenHash: "gone", nowMs: NOW })).toBe(true);
    expect(store.revokeSession({ tokenHash: "gone", nowMs: NOW })).toBe(false);
    expect(store.userForSession({ tokenHash: "gone", nowMs: NOW })).toBeNull();

    expect(store.pruneSessions({ nowMs: NOW })).toBe(2);
    expect(store.userForSession({ tokenHash: "live", nowMs: NOW })).not.toBeNull();
  });

  it("saves, overwrites and clears throttle records", () => {
    const store = db().auth();
    expect(store.readThrottle("a@example.com")).toBeNull();
    store.saveThrottle({ key: "a@example.com", failures: 1, windowStartMs: NOW, lockedUntilMs: null });
    store.saveThrottle({ key: "a@example.com", failures: 5, windowStartMs: NOW, lockedUntilMs: NOW + 60_000 });
    expect(store.readThrottle("a@example.com")).toEqual({ key: "a@example.com", failures: 5, windowStartMs: NOW, lockedUntilMs: NOW + 60_000 });
    store.clearThrottle("a@example.com");
    expect(store.readThrottle("a@example.com")).toBeNull();
  });
});
