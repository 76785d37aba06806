import { expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { isAppError } from "@/server/errors";
import { countUsers, createUser, findUserByEmail, verifyPassword } from "./users";

describeEachEngine("users", ({ db }) => {

  it("stores a salted scrypt hash that verifies only the right password", async () => {
    createUser(db().auth(), { email: "A@Example.com", role: "admin", password: "correct horse", nowMs: 0 });
    createUser(db().auth(), { email: "b@example.com", role: "viewer", password: "correct horse", nowMs: 0 });
    const a = findUserByEmail(db().auth(), "a@example.com");
    const b = findUserByEmail(db().auth(), "b@example.com");
    expect(a?.passwordHash.startsWith("scrypt$32768$8$1$")).toBe(true);
    expect(a?.passwordHash).not.toBe(b?.passwordHash);
    expect(a?.passwordHash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", a!.passwordHash)).toBe(true);
    expect(await verifyPassword("wrong horse", a!.passwordHash)).toBe(false);
    expect(await verifyPassword("correct horse", "garbage")).toBe(false);
  });

  it("refuses a duplicate email with a typed conflict", () => {
    createUser(db().auth(), { email: "a@example.com", role: "admin", password: "password1", nowMs: 0 });
    let caught: unknown;
    try {
      createUser(db().auth(), { email: " A@EXAMPLE.COM ", role: "viewer", password: "password2", nowMs: 0 });
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught) && caught.code).toBe("conflict");
    expect(countUsers(db().auth())).toBe(1);
  });

  it("refuses a short password and a bad email without writing", () => {
    expect(() => createUser(db().auth(), { email: "a@example.com", role: "admin", password: "short", nowMs: 0 })).toThrow();
    expect(() => createUser(db().auth(), { email: "nope", role: "admin", password: "long enough", nowMs: 0 })).toThrow();
    expect(countUsers(db().auth())).toBe(0);
  });
});
