import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { isAppError } from "@/server/errors";
import { countUsers, createUser, findUserByEmail, verifyPassword } from "./users";
import { createSqliteAuthStore } from "./sqlite-store";

describe("users", () => {
  let db: TestDb;
  beforeEach(() => {
    db = createTestDb();
  });
  afterEach(() => db.close());

  it("stores a salted scrypt hash that verifies only the right password", async () => {
    createUser(createSqliteAuthStore(db.sqlite), { email: "A@Example.com", role: "admin", password: "correct horse", nowMs: 0 });
    createUser(createSqliteAuthStore(db.sqlite), { email: "b@example.com", role: "viewer", password: "correct horse", nowMs: 0 });
    const a = findUserByEmail(createSqliteAuthStore(db.sqlite), "a@example.com");
    const b = findUserByEmail(createSqliteAuthStore(db.sqlite), "b@example.com");
    expect(a?.passwordHash.startsWith("scrypt$32768$8$1$")).toBe(true);
    expect(a?.passwordHash).not.toBe(b?.passwordHash);
    expect(a?.passwordHash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", a!.passwordHash)).toBe(true);
    expect(await verifyPassword("wrong horse", a!.passwordHash)).toBe(false);
    expect(await verifyPassword("correct horse", "garbage")).toBe(false);
  });

  it("refuses a duplicate email with a typed conflict", () => {
    createUser(createSqliteAuthStore(db.sqlite), { email: "a@example.com", role: "admin", password: "password1", nowMs: 0 });
    let caught: unknown;
    try {
      createUser(createSqliteAuthStore(db.sqlite), { email: " A@EXAMPLE.COM ", role: "viewer", password: "password2", nowMs: 0 });
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught) && caught.code).toBe("conflict");
    expect(countUsers(createSqliteAuthStore(db.sqlite))).toBe(1);
  });

  it("refuses a short password and a bad email without writing", () => {
    expect(() => createUser(createSqliteAuthStore(db.sqlite), { email: "a@example.com", role: "admin", password: "short", nowMs: 0 })).toThrow();
    expect(() => createUser(createSqliteAuthStore(db.sqlite), { email: "nope", role: "admin", password: "long enough", nowMs: 0 })).toThrow();
    expect(countUsers(createSqliteAuthStore(db.sqlite))).toBe(0);
  });
});
