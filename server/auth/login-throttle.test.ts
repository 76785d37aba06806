// The sign-in throttle, driven through the real login route as an attacker
// would: the socket peer arrives as the stamped header (peer-address.ts),
// X-Forwarded-For is whatever the client writes.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { installPeerAddressStamp } from "@/server/http/peer-address";
import { createLogger } from "@/server/log";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { PASSWORD_WORK_CONCURRENCY } from "./password/work-gate";
import { createSqliteAuthStore } from "./sqlite-store";
import { ACCOUNT_FREE_FAILURES, ADDRESS_MAX_FAILURES, ADDRESS_WINDOW_MS, accountDelayMs } from "./throttle";
import { signInFrom } from "./login-test-support";
import { createUser } from "./users";

const ADMIN = { email: "admin@example.com", password: "admin-password-long" };
const VIEWER = { email: "viewer@example.com", password: "viewer-password-long" };
const ATTACKER = "203.0.113.66";
const OWNER = "198.51.100.20";

type Sent = { body: unknown; peer: string; headers?: Record<string, string> };

function send({ body, peer, headers = {} }: Sent): Promise<Response> {
  return signInFrom(body, peer, headers);
}

let rt: TestRuntime;
let clock: ReturnType<typeof manualClock>;
let lines: string[];

function rows(table: string): number {
  return (rt.handle.sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
}

beforeAll(async () => installPeerAddressStamp());

beforeEach(async () => {
  clock = manualClock(Date.parse("2026-03-01T10:00:00Z"));
  lines = [];
  const log = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
  rt = createTestRuntime({ prefix: "login-throttle-", install: true, clock, log });
  const store = createSqliteAuthStore(rt.handle);
  await createUser(store, { ...ADMIN, role: "admin", nowMs: clock.now() });
  await createUser(store, { ...VIEWER, role: "viewer", nowMs: clock.now() });
});
afterEach(async () => rt.dispose());

describe("sign-in throttle", () => {
  it("40 emails with a rotating X-Forwarded-For from one socket get throttled", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await send({ body: { email: `user${i}@example.com`, password: "wrong-password" }, peer: ATTACKER, headers: { "x-forwarded-for": `192.0.2.${i}` } });
      statuses.push(response.status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(ADDRESS_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - ADDRESS_MAX_FAILURES);
    // The lock is on the address: even a right password from it waits out the window.
    expect((await send({ body: VIEWER, peer: ATTACKER })).status).toBe(429);
    clock.advance(ADDRESS_WINDOW_MS);
    expect((await send({ body: VIEWER, peer: ATTACKER })).status).toBe(200);
  });

  it("the owner with the right password from a known address gets in after five wrong guesses from elsewhere", async () => {
    // The owner signed in from OWNER before: a known address for this account.
    expect((await send({ body: ADMIN, peer: OWNER })).status).toBe(200);
    const guesses: number[] = [];
    for (let i = 0; i < 5; i++) guesses.push((await send({ body: { ...ADMIN, password: `wrong-guess-${i}` }, peer: ATTACKER })).status);
    const owner = await send({ body: ADMIN, peer: OWNER });
    expect(owner.status).toBe(200);
    expect(guesses).toEqual([401, 401, 401, 429, 429]);
  });

  it("a guesser pays an exponential delay per account on an address it already used", async () => {
    for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) {
      expect((await send({ body: { ...ADMIN, password: `wrong-guess-${i}` }, peer: ATTACKER })).status).toBe(401);
    }
    for (let n = ACCOUNT_FREE_FAILURES; n < ACCOUNT_FREE_FAILURES + 4; n++) {
      const wait = accountDelayMs(n);
      const refused = await send({ body: { ...ADMIN, password: "wrong-again" }, peer: ATTACKER });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBe(Math.ceil(wait / 1000));
      clock.advance(wait);
      expect((await send({ body: { ...ADMIN, password: "wrong-again" }, peer: ATTACKER })).status).toBe(401);
    }
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES + 1)).toBe(2 * accountDelayMs(ACCOUNT_FREE_FAILURES));
    // Even the right password waits on that address (it is the guesser's)...
    expect((await send({ body: ADMIN, peer: ATTACKER })).status).toBe(429);
    expect(rows("auth_sessions")).toBe(0);
  });

  it("typos on several accounts behind one NAT address do not lock the others out", async () => {
    const nat = "192.0.2.200";
    for (let i = 0; i < 5; i++) {
      expect((await send({ body: { email: `colleague${i}@example.com`, password: "mistyped-password" }, peer: nat })).status).toBe(401);
    }
    expect((await send({ body: VIEWER, peer: nat })).status).toBe(200);
    expect((await send({ body: ADMIN, peer: nat })).status).toBe(200);
  });

  it("parallel guesses from one address cannot all pass the throttle before the slow password check", async () => {
    const guesses = Array.from({ length: 12 }, (_, i) => send({ body: { ...ADMIN, password: `guess-${i}` }, peer: ATTACKER }));
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(ACCOUNT_FREE_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - ACCOUNT_FREE_FAILURES);
  });

  it("an over-long password is refused with 400 before any hashing", async () => {
    const before = rt.signIn.gate.stats().total;
    const response = await send({ body: { ...ADMIN, password: "x".repeat(1024) }, peer: ATTACKER });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_request");
    expect(rt.signIn.gate.stats().total).toBe(before);
    expect(rows("login_throttle")).toBe(0);
  });

  it("concurrent sign-ins with long passwords hash at most a few at a time", async () => {
    const attempts = Array.from({ length: 8 }, (_, i) =>
      send({ body: { email: `someone${i}@example.com`, password: "y".repeat(256) }, peer: `192.0.${i + 1}.1` }),
    );
    const statuses = (await Promise.all(attempts)).map((r) => r.status);
    expect(statuses).toEqual(Array(8).fill(401));
    const stats = rt.signIn.gate.stats();
    expect(stats.total).toBe(8);
    expect(stats.peak).toBe(PASSWORD_WORK_CONCURRENCY);
    expect(stats.running).toBe(0);
  });

  it("login log lines carry a hashed client key, never the address or the email", async () => {
    await send({ body: { ...ADMIN, password: "wrong-password" }, peer: ATTACKER });
    await send({ body: ADMIN, peer: ATTACKER });
    await send({ body: ADMIN, peer: OWNER });
    const logins = lines.map((l) => JSON.parse(l)).filter((l) => String(l.event).startsWith("login_"));
    expect(logins.map((l) => l.event)).toEqual(["login_refused", "login_succeeded", "login_succeeded"]);
    for (const line of logins) expect(line.client).toMatch(/^[0-9a-f]{16}$/);
    // Same client, same key; another client, another key.
    expect(logins[0].client).toBe(logins[1].client);
    expect(logins[2].client).not.toBe(logins[1].client);
    const text = lines.join("\n");
    for (const secret of [ATTACKER, OWNER, ADMIN.email, ADMIN.password]) expect(text).not.toContain(secret);
  });
});
