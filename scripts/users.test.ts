import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findUserByEmail, verifyPassword } from "@/server/auth/users";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";

function runUsers(db: TestDb, args: string[], stdin: string) {
  return spawnSync(
    process.execPath,
    [path.join(process.cwd(), "node_modules/tsx/dist/cli.mjs"), "--conditions=react-server", "scripts/users.ts", ...args],
    { input: stdin, env: { ...process.env, DATABASE_URL: `file:${db.file}` }, encoding: "utf8" },
  );
}

describe("npm run users", () => {
  let db: TestDb;
  beforeEach(() => {
    db = createTestDb();
  });
  afterEach(() => db.close());

  it("creates a user with the password read from stdin", async () => {
    const result = runUsers(db, ["create", "--email", "Ops@Example.com", "--role", "viewer"], "stdin pass word\n");
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain("stdin pass word");
    const user = findUserByEmail(createSqliteAuthStore(db.sqlite), "ops@example.com");
    expect(user?.role).toBe("viewer");
    expect(await verifyPassword("stdin pass word", user!.passwordHash)).toBe(true);
  });

  it("refuses a bad role, a duplicate and a short password with a non-zero exit", () => {
    expect(runUsers(db, ["create", "--email", "a@example.com", "--role", "root"], "long-password\n").status).toBe(2);
    expect(runUsers(db, ["create", "--email", "a@example.com", "--role", "admin"], "short\n").status).toBe(1);
    expect(runUsers(db, ["create", "--email", "a@example.com", "--role", "admin"], "long-password\n").status).toBe(0);
    const duplicate = runUsers(db, ["create", "--email", "A@example.com", "--role", "viewer"], "long-password\n");
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toContain("already exists");
  });

  it("refuses the weak passwords of the issue with the rule in the message", () => {
    for (const [password, reason] of [["12345678", "at least 12"], ["password", "at least 12"], ["        ", "at least 12"], ["long password\nwith a newline", "control characters"], ["password1234", "too common"]] as const) {
      const result = runUsers(db, ["create", "--email", "weak@example.com", "--role", "admin"], `${password}\n`);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(reason);
    }
    expect(findUserByEmail(createSqliteAuthStore(db.sqlite), "weak@example.com")).toBeNull();
  });
});
