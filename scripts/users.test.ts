// `npm run users` through its real entry point (scripts/users.ts in its own
// process): the password comes from stdin and never reaches stdout, and the
// exit codes. Each spawn is a cold tsx compile (seconds on two loaded
// cores), so the tests wait for each process to exit, asynchronously, and
// their timeout only bounds a hang; rules that need no process (the weak
// password reasons) run the same command in process.
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runUsersCommand } from "@/server/cli/users/main";
import { findUserByEmail, verifyPassword } from "@/server/auth/users";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";
import { systemClock } from "@/server/clock";
import { createLogger } from "@/server/log";
import { runUsers as runUsersProcess } from "@/server/cli/test-support/run-cli";

const runUsers = (db: TestDb, args: string[], stdin: string) => runUsersProcess(db.file, args, stdin);

async function runInProcess(db: TestDb, argv: string[], stdinText: string): Promise<{ code: number; err: string }> {
  const stdin = new PassThrough();
  stdin.end(stdinText);
  let err = "";
  const code = await runUsersCommand({
    argv,
    env: { DATABASE_URL: `file:${db.file}` },
    stdin,
    stdout: { write: () => true },
    stderr: { write: (text: string) => (err += text) },
    clock: systemClock,
    log: createLogger({ level: "silent" }),
  });
  return { code, err };
}

describe("npm run users", { timeout: 180_000 }, () => {
  let db: TestDb;
  beforeEach(async () => {
    db = createTestDb();
  });
  afterEach(async () => db.close());

  it("creates a user with the password read from stdin", async () => {
    const result = await runUsers(db, ["create", "--email", "Ops@Example.com", "--role", "viewer"], "stdin pass word\n");
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain("stdin pass word");
    const user = await findUserByEmail(createSqliteAuthStore(db.db), "ops@example.com");
    expect(user?.role).toBe("viewer");
    expect(await verifyPassword("stdin pass word", user!.passwordHash)).toBe(true);
  });

  it("refuses a bad role, a duplicate and a short password with a non-zero exit", async () => {
    expect((await runUsers(db, ["create", "--email", "a@example.com", "--role", "root"], "long-password\n")).status).toBe(2);
    const short = await runUsers(db, ["create", "--email", "a@example.com", "--role", "admin"], "short\n");
    expect(short.status).toBe(1);
    expect(short.stderr).toContain("at least 12");
    expect((await runUsers(db, ["create", "--email", "a@example.com", "--role", "admin"], "long-password\n")).status).toBe(0);
    const duplicate = await runUsers(db, ["create", "--email", "A@example.com", "--role", "viewer"], "long-password\n");
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toContain("already exists");
  });

  it("refuses the weak passwords of the issue with the rule in the message", async () => {
    for (const [password, reason] of [["12345678", "at least 12"], ["password", "at least 12"], ["        ", "at least 12"], ["long password\nwith a newline", "control characters"], ["password1234", "too common"]] as const) {
      const result = await runInProcess(db, ["create", "--email", "weak@example.com", "--role", "admin"], `${password}\n`);
      expect([password, result.code]).toEqual([password, 1]);
      expect(result.err).toContain(reason);
    }
    expect(await findUserByEmail(createSqliteAuthStore(db.db), "weak@example.com")).toBeNull();
  });
});
