import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createLogger } from "@/server/log";
import { ensureFirstAdmin } from "./first-admin";
import { countUsers, findUserByEmail } from "./users";
import { createSqliteAuthStore } from "./sqlite-store";

const log = createLogger({ level: "silent" });

describe("first admin", () => {
  let db: TestDb;
  beforeEach(() => {
    db = createTestDb();
  });
  afterEach(() => db.close());

  it("is created from the environment only while the user table is empty", () => {
    const options = { store: createSqliteAuthStore(db.sqlite), email: "root@example.com", password: "first-admin-pw", nowMs: 0, log };
    expect(ensureFirstAdmin(options)).toBe("created");
    expect(findUserByEmail(createSqliteAuthStore(db.sqlite), "root@example.com")?.role).toBe("admin");
    expect(ensureFirstAdmin({ ...options, email: "other@example.com" })).toBe("skipped");
    expect(countUsers(createSqliteAuthStore(db.sqlite))).toBe(1);
  });

  it("does nothing without both variables", () => {
    expect(ensureFirstAdmin({ store: createSqliteAuthStore(db.sqlite), email: "root@example.com", password: undefined, nowMs: 0, log })).toBe("skipped");
    expect(countUsers(createSqliteAuthStore(db.sqlite))).toBe(0);
  });
});
