import { expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { isAppError } from "@/server/errors";
import { countUsers, createUser, findUserByEmail, hashPassword, verifyPassword } from "./users";

describeEachEngine("users", ({ db }) => {

  it("stores a salted scrypt hash that verifies only the right password", async () => {
    await createUser(db().auth(), { email: "A@Example.com", role: "admin", password: "correct horse", nowMs: 0 });
    await createUser(db().auth(), { email: "b@example.com", role: "viewer", password: "correct horse", nowMs: 0 });
    const a = await findUserByEmail(db().auth(), "a@example.com");
    const b = await findUserByEmail(db().auth(), "b@example.com");
    expect(a?.passwordHash.startsWith("scrypt$32768$8$1$")).toBe(true);
    expect(a?.passwordHash).not.toBe(b?.passwordHash);
    expect(a?.passwordHash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", a!.passwordHash)).toBe(true);
    expect(await verifyPassword("wrong horse", a!.passwordHash)).toBe(false);
    expect(await verifyPassword("correct horse", "garbage")).toBe(false);
  });

  it("refuses a duplicate email with a typed conflict", async () => {
    await createUser(db().auth(), { email: "a@example.com", role: "admin", password: "first-long-password", nowMs: 0 });
    let caught: unknown;
    try {
      await createUser(db().auth(), { email: " A@EXAMPLE.COM ", role: "viewer", password: "second-long-password", nowMs: 0 });
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught) && caught.code).toBe("conflict");
    expect(await countUsers(db().auth())).toBe(1);
  });

  it("refuses a short password and a bad email without writing", async () => {
    await expect(createUser(db().auth(), { email: "a@example.com", role: "admin", password: "short", nowMs: 0 })).rejects.toThrow();
    await expect(createUser(db().auth(), { email: "nope", role: "admin", password: "long enough password", nowMs: 0 })).rejects.toThrow();
    expect(await countUsers(db().auth())).toBe(0);
  });

  // The weak passwords, each accepted by the old 8-character rule.
  it.each([
    ["12345678", "at least 12"],
    ["password", "at least 12"],
    ["        ", "at least 12"],
    ["            ", "repeated"],
    ["line one\nline two", "control characters"],
    ["tab\tseparated pw", "control characters"],
    ["123456789012", "too common"],
    ["Password1234", "too common"],
    ["qwertyuiopas", "too common"],
    ["x".repeat(257), "at most 256"],
  ])("refuses the weak password %j with a clear message and writes nothing", async (password, reason) => {
    let caught: unknown;
    try {
      await createUser(db().auth(), { email: "a@example.com", role: "admin", password, nowMs: 0 });
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught) && caught.code).toBe("invalid_request");
    expect((caught as Error).message).toContain(reason);
    expect(await countUsers(db().auth())).toBe(0);
  });

  it("accepts a long passphrase with spaces and non-ASCII letters", async () => {
    await createUser(db().auth(), { email: "a@example.com", role: "admin", password: "canção de três pássaros", nowMs: 0 });
  });

  it("an account made under the old rule still verifies (sign-in never applies the rule)", async () => {
    const legacy = hashPassword("old8char");
    await db().auth().insertUser({ id: "u-old", email: "old@example.com", role: "viewer", passwordHash: legacy, createdAt: "2025-01-01T00:00:00Z" });
    const user = await findUserByEmail(db().auth(), "old@example.com");
    expect(await verifyPassword("old8char", user!.passwordHash)).toBe(true);
  });
});
