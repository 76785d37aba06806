import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createLogger } from "@/server/log";
import { ensureFirstAdmin } from "./first-admin";
import { countUsers, findUserByEmail } from "./users";
import { createSqliteAuthStore } from "./sqlite-store";

const log = createLogger({ level: "silent" });

describe("first admin", () => {
  let db: TestDb;
  beforeEach(async () => {
    db = createTestDb();
  });
  afterEach(async () => db.close());

  it("is created from the environment only while the user table is empty", async () => {
    const options = { store: createSqliteAuthStore(db.db), email: "root@example.com", password: "first-admin-pw", nowMs: 0, log };
    expect(await ensureFirstAdmin(options)).toBe("created");
    expect((await findUserByEmail(createSqliteAuthStore(db.db), "root@example.com"))?.role).toBe("admin");
    expect(await ensureFirstAdmin({ ...options, email: "other@example.com" })).toBe("skipped");
    expect(await countUsers(createSqliteAuthStore(db.db))).toBe(1);
  });

  it("does nothing without both variables", async () => {
    expect(await ensureFirstAdmin({ store: createSqliteAuthStore(db.db), email: "root@example.com", password: undefined, nowMs: 0, log })).toBe("skipped");
    expect(await countUsers(createSqliteAuthStore(db.db))).toBe(0);
  });

  it("refuses a weak ADMIN_PASSWORD with a logged reason and creates no account", async () => {
    const lines: string[] = [];
    const capture = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    for (const password of ["12345678", "password", "        ", "pass\nword-is-long"]) {
      expect(await ensureFirstAdmin({ store: createSqliteAuthStore(db.db), email: "root@example.com", password, nowMs: 0, log: capture })).toBe("refused");
    }
    expect(await countUsers(createSqliteAuthStore(db.db))).toBe(0);
    const refused = lines.map((l) => JSON.parse(l)).filter((l) => l.event === "first_admin_refused");
    expect(refused).toHaveLength(4);
    expect(refused[0].reason).toContain("at least 12");
    expect(lines.join("")).not.toContain("12345678");
  });
});
