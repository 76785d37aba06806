// `npm run users`: the lifecycle commands on both engines (in process, as
// scripts/users.ts calls them), the real entry point against a running
// runtime's database, and the password never echoed on a real terminal.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as eventsGet } from "@/app/api/v1/system/events/route";
import { SESSION_COOKIE } from "@/server/auth/current-user";
import { createSession } from "@/server/auth/sessions";
import { createUser, findUserByEmail, verifyPassword } from "@/server/auth/users";
import { systemClock } from "@/server/clock";
import { createEmptyPgDatabase, TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { createLogger } from "@/server/log";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { runUsersCommand } from "./main";
import { openAuthStores } from "./open-auth-stores";

const log = createLogger({ level: "silent" });
const ROOT = process.cwd();
const TSX = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");

async function run(env: Record<string, string>, argv: string[], stdinText = ""): Promise<{ code: number; out: string; err: string }> {
  const stdin = new PassThrough();
  stdin.end(stdinText);
  let out = "";
  let err = "";
  const code = await runUsersCommand({
    argv,
    env,
    stdin,
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    clock: systemClock,
    log,
  });
  return { code, out, err };
}

for (const { engine, skip } of [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !TEST_POSTGRES_URL },
]) {
  describe.skipIf(skip)(`npm run users [${engine}]`, () => {
    let env: Record<string, string>;
    let cleanUp: () => Promise<void> | void;
    beforeEach(async () => {
      if (engine === "sqlite") {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "users-cli-"));
        env = { DATABASE_URL: `file:${path.join(dir, "workspace.db")}` };
        cleanUp = () => fs.rmSync(dir, { recursive: true, force: true });
      } else {
        const db = await createEmptyPgDatabase();
        env = { DATABASE_URL: db.url };
        cleanUp = () => db.drop();
      }
    });
    afterEach(async () => cleanUp());

    const withStores = async <T>(fn: (stores: Awaited<ReturnType<typeof openAuthStores>>["stores"]) => T | Promise<T>): Promise<T> => {
      const opened = await openAuthStores(env, log);
      try {
        return await fn(opened.stores);
      } finally {
        await opened.close();
      }
    };

    it("creates, disables (ending sessions), enables, changes roles, resets a password and lists, all audited as cli", async () => {
      expect(await run(env, ["create", "--email", "Root@Example.com", "--role", "admin"], "root-password-long\n")).toMatchObject({ code: 0 });
      const created = await run(env, ["create", "--email", "ops@example.com", "--role", "viewer"], "ops-password-long\n");
      expect(created.out).toMatch(/^created viewer ops@example.com \(id [0-9a-f-]{36}\)\n$/);
      const opsId = await withStores(async (s) => {
        const id = (await findUserByEmail(s.auth, "ops@example.com"))!.id;
        await createSession(s.auth, { userId: id, nowMs: Date.now() });
        return id;
      });

      expect(await run(env, ["disable", "--email", "ops@example.com"])).toEqual({ code: 0, out: "ops@example.com: disabled (1 session ended)\n", err: "" });
      expect((await run(env, ["disable", "--email", "ops@example.com"])).out).toBe("ops@example.com: already disabled\n");
      expect(await withStores((s) => s.auth.listSessions({ userId: opsId, nowMs: Date.now(), idleSinceMs: 0 }))).toEqual([]);
      expect((await run(env, ["enable", "--email", "ops@example.com"])).out).toBe("ops@example.com: enabled\n");
      expect((await run(env, ["role", "--email", "ops@example.com", "--role", "admin"])).out).toBe("ops@example.com: now admin\n");

      const reset = await run(env, ["reset-password", "--email", "OPS@example.com"], "temporary-password-9\n");
      expect(reset.code).toBe(0);
      expect(reset.out).toContain("must be changed at next sign-in");
      const ops = (await withStores((s) => findUserByEmail(s.auth, "ops@example.com")))!;
      expect(ops.mustChangePassword).toBe(true);
      expect(await verifyPassword("temporary-password-9", ops.passwordHash)).toBe(true);

      const list = await run(env, ["list"]);
      expect(list.out.trim().split("\n")).toEqual(["ops@example.com\tadmin\tactive\tmust-change-password\t0 sessions", "root@example.com\tadmin\tactive\t0 sessions"]);

      const kinds = await withStores(async (s) => (await s.audit.list({ beforeSeq: null, kind: null, limit: 50 })).map((row) => [row.kind, row.actor, row.result]));
      expect(kinds).toEqual([
        ["user.password_reset", "cli", "ok"],
        ["user.role_changed", "cli", "ok"],
        ["user.enabled", "cli", "ok"],
        ["user.disabled", "cli", "ok"],
        ["user.created", "cli", "ok"],
        ["user.created", "cli", "ok"],
      ]);
    });

    it("refuses to disable or demote the last enabled admin, an unknown email and a weak temporary password (exit 1, nothing changed)", async () => {
      await run(env, ["create", "--email", "root@example.com", "--role", "admin"], "root-password-long\n");
      for (const argv of [["disable", "--email", "root@example.com"], ["role", "--email", "root@example.com", "--role", "viewer"]]) {
        const refused = await run(env, argv);
        expect(refused).toMatchObject({ code: 1, out: "" });
        expect(refused.err).toContain("last enabled admin");
      }
      expect((await run(env, ["disable", "--email", "ghost@example.com"])).err).toBe("users: No user has this email\n");
      const weak = await run(env, ["reset-password", "--email", "root@example.com"], "short\n");
      expect(weak.code).toBe(1);
      expect(weak.err).toContain("at least 12");
      expect(await withStores((s) => findUserByEmail(s.auth, "root@example.com"))).toMatchObject({ role: "admin", disabledAtMs: null, mustChangePassword: false });
    });

    it("answers usage errors with exit 2 before touching the database", async () => {
      for (const argv of [[], ["drop"], ["disable"], ["role", "--email", "a@example.com"], ["role", "--email", "a@example.com", "--role", "root"], ["disable", "--email", "a@example.com", "--role", "admin"], ["disable", "--email", "a@example.com", "extra"], ["enable", "--bogus"]]) {
        const result = await run(env, argv);
        expect([argv.join(" "), result.code]).toEqual([argv.join(" "), 2]);
        expect(result.err).toContain("usage: npm run users");
      }
    });
  });
}

// Each test starts a real `tsx` process (a cold compile of the server graph:
// seconds on two loaded cores). The tests wait for states (a prompt, an ended
// stream, an exit); the timeout only bounds a hang.
describe("npm run users, the real entry point", { timeout: 120_000 }, () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = createTestRuntime({ prefix: "users-cli-live-", install: true });
  });
  afterEach(async () => rt.dispose());

  function spawnUsers(args: string[]): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [TSX, "--conditions=react-server", "scripts/users.ts", ...args], {
        env: { ...process.env, DATABASE_URL: `file:${rt.dbFile}`, LOG_LEVEL: "error" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, out }));
    });
  }

  it("[#26 acceptance] disabling from the command line ends the user's open event stream in the running server", async () => {
    const { id } = await createUser(rt.stores.auth, { email: "streamer@example.com", role: "viewer", password: "long-enough-password", nowMs: Date.now() });
    const cookie = `${SESSION_COOKIE}=${(await createSession(rt.stores.auth, { userId: id, nowMs: Date.now() })).token}`;
    const abort = new AbortController();
    const res = await eventsGet(new Request("http://localhost:3000/api/v1/system/events", { headers: { cookie }, signal: abort.signal }));
    const reader = res.body!.getReader();
    await reader.read();
    expect(await spawnUsers(["disable", "--email", "streamer@example.com"])).toEqual({ code: 0, out: "streamer@example.com: disabled (1 session ended)\n" });
    // Waits for the state: the server's next re-check (every 500 ms) ends the stream; a stream left open fails the test's timeout.
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      // heartbeats and events until the end
    }
    expect(rt.streams.count()).toBe(0);
    abort.abort();
  });

  it("never echoes the password on a terminal (a real pseudo-terminal, through script(1))", async () => {
    const secret = "typed-secret-passphrase";
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(TSX)} --conditions=react-server scripts/users.ts create --email tty@example.com --role viewer`;
    const child = spawn("script", ["-qefc", command, "/dev/null"], {
      env: { ...process.env, DATABASE_URL: `file:${rt.dbFile}`, LOG_LEVEL: "error", TERM: "dumb" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => screen.includes(text) && (child.stdout.off("data", onData), resolve());
        const onData = (chunk: Buffer) => {
          screen += chunk.toString("utf8");
          check();
        };
        child.stdout.on("data", onData);
        child.once("close", () => reject(new Error(`ended before "${text}": ${screen}`)));
        check();
      });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    // A prompt on screen is the state to wait for: the command turns echo off
    // before it writes the first one and keeps it off until both are read.
    await seen("Password: ");
    child.stdin.write(`${secret}\r`);
    await seen("Repeat password: ");
    child.stdin.write(`${secret}\r`);
    await seen("created viewer tty@example.com");
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(screen).not.toContain(secret);
    expect(await verifyPassword(secret, (await findUserByEmail(rt.stores.auth, "tty@example.com"))!.passwordHash)).toBe(true);
  });
});
