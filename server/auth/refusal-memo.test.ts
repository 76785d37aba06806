// A flood of refused sign-ins must not take the database's writer: a client
// still inside its wait is answered from memory, exactly as the database
// would answer it, and only while the database would.
import Database from "better-sqlite3";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { installPeerAddressStamp } from "@/server/http/peer-address";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { createRefusalMemo } from "./refusal-memo";
import { createSqliteAuthStore } from "./sqlite-store";
import { ACCOUNT_FREE_FAILURES, ADDRESS_MAX_FAILURES, ADDRESS_WINDOW_MS, beginAttempt, throttleKeys } from "./throttle";
import { signInFrom } from "./login-test-support";
import { createUser } from "./users";

const ADMIN = { email: "admin@example.com", password: "admin-password-long" };
const ATTACKER = "203.0.113.66";
const OWNER = "198.51.100.20";

let rt: TestRuntime;
let clock: ReturnType<typeof manualClock>;

const send = signInFrom;

/** Runs `fn` while another connection holds the database's write lock: anything that needs the writer cannot answer. */
async function whileWriterHeld<T>(fn: () => Promise<T>): Promise<T> {
  const other = new Database(rt.handle.file, { timeout: 0 });
  other.exec("BEGIN IMMEDIATE");
  try {
    return await fn();
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
}

beforeAll(async () => installPeerAddressStamp());

beforeEach(async () => {
  clock = manualClock(Date.parse("2026-03-01T10:00:00Z"));
  // A short busy timeout: a request that did need the writer fails fast instead of waiting 5 s.
  rt = createTestRuntime({ prefix: "refusal-memo-", install: true, clock });
  rt.handle.sqlite.pragma("busy_timeout = 50");
  await createUser(createSqliteAuthStore(rt.handle), { ...ADMIN, role: "admin", nowMs: clock.now() });
});
afterEach(async () => rt.dispose());

describe("refused sign-ins answered from memory", () => {
  it("[#26-1] a client inside its account delay is refused 429 with the same Retry-After while another connection holds the write lock", async () => {
    for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) expect((await send({ ...ADMIN, password: `wrong-${i}` }, ATTACKER)).status).toBe(401);
    const first = await send({ ...ADMIN, password: "wrong-again" }, ATTACKER);
    expect(first.status).toBe(429);
    const statuses = await whileWriterHeld(async () => {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send({ ...ADMIN, password: `flood-${i}` }, ATTACKER)));
      return answers.map((answer) => `${answer.status} ${answer.headers.get("retry-after")}`);
    });
    expect(statuses).toEqual(Array(50).fill(`429 ${first.headers.get("retry-after")}`));
  });

  it("[#26-1] an address locked after spraying accounts is refused for every other account without the writer", async () => {
    for (let i = 0; i < ADDRESS_MAX_FAILURES; i++) expect((await send({ email: `user${i}@example.com`, password: "wrong-password" }, ATTACKER)).status).toBe(401);
    expect((await send({ email: "one-more@example.com", password: "wrong-password" }, ATTACKER)).status).toBe(429);
    const statuses = await whileWriterHeld(async () =>
      Promise.all(Array.from({ length: 30 }, (_, i) => send({ email: `spray${i}@example.com`, password: "wrong-password" }, ATTACKER).then((r) => r.status))),
    );
    expect(statuses).toEqual(Array(30).fill(429));
    // The lock ends with its window, in memory as in the database.
    clock.advance(ADDRESS_WINDOW_MS);
    expect((await send(ADMIN, ATTACKER)).status).toBe(200);
  });

  it("[#26-1] the owner's sign-in from a known address starts the account over: a remembered refusal elsewhere is forgotten", async () => {
    expect((await send(ADMIN, OWNER)).status).toBe(200);
    for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) expect((await send({ ...ADMIN, password: `wrong-${i}` }, ATTACKER)).status).toBe(401);
    expect((await send({ ...ADMIN, password: "wrong-again" }, ATTACKER)).status).toBe(429);
    expect((await send(ADMIN, OWNER)).status).toBe(200);
    // The database cleared the account's delay: the next guess is counted (401), not refused from memory.
    expect((await send({ ...ADMIN, password: "wrong-after" }, ATTACKER)).status).toBe(401);
  });

  it("a known client held by its address's failures is remembered only until that window ends", async () => {
    const store = createSqliteAuthStore(rt.handle);
    const memo = createRefusalMemo();
    const keys = throttleKeys({ email: ADMIN.email, address: OWNER, net: "198.51.100.0/24" });
    const now = clock.now();
    await store.saveThrottle({ key: keys.account, failures: 12, windowStartMs: now, lockedUntilMs: now + 15 * 60_000 });
    await store.saveThrottle({ key: keys.address, failures: 1, windowStartMs: now - ADDRESS_WINDOW_MS + 60_000, lockedUntilMs: null });
    expect((await beginAttempt(store, { keys, nowMs: now, known: true, memo })).waitMs).toBe(15 * 60_000);
    expect(memo.waitMs({ keys, known: true, nowMs: now })).toBe(60_000);
    // A minute on, the address's window is over: the database admits the owner, and so does the memo.
    expect(memo.waitMs({ keys, known: true, nowMs: now + 60_000 })).toBe(0);
    expect((await beginAttempt(store, { keys, nowMs: now + 60_000, known: true, memo })).waitMs).toBe(0);
  });

  it("holds at most its bound of entries, the oldest going first", () => {
    const memo = createRefusalMemo({ maxEntries: 3 });
    const keysOf = (n: number) => throttleKeys({ email: "a@example.com", address: `192.0.2.${n}`, net: `192.0.2.0/24` });
    for (let n = 1; n <= 5; n++) memo.remember({ keys: keysOf(n), known: false, scope: "address", untilMs: 1_000 });
    expect(memo.size()).toBe(3);
    expect(memo.waitMs({ keys: keysOf(1), known: false, nowMs: 0 })).toBe(0);
    expect(memo.waitMs({ keys: keysOf(5), known: false, nowMs: 0 })).toBe(1_000);
  });
});
