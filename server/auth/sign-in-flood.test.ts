// #26 items 1 and 7 as an attacker would try them, through the real login
// route: a flood of refused sign-ins from one address, addresses rotated
// through one network against a locked account, and the password-hash gate
// filled from one network.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as auditGet } from "@/app/api/v1/system/audit/route";
import { manualClock } from "@/server/clock";
import { createRefusalAudit } from "@/server/audit/refusals";
import { installPeerAddressStamp } from "@/server/http/peer-address";
import { createLogger } from "@/server/log";
import { LogRing } from "@/server/logs/ring";
import { createTestRuntime, type TestRuntime } from "@/server/runtime-test-support";
import { hashSessionToken } from "./current-user";
import { PASSWORD_WORK_PER_NETWORK } from "./password/work-gate";
import { createSqliteAuthStore } from "./sqlite-store";
import { ACCOUNT_FREE_FAILURES, ADDRESS_WINDOW_MS, KNOWN_ADDRESS_MS, NET_MAX_FAILURES, accountDelayMs, pruneThrottle } from "./throttle";
import { signInFrom } from "./login-test-support";
import { createUser } from "./users";

const BASE = "http://localhost:3000";
const ADMIN = { email: "admin@example.com", password: "admin-password-long" };
const ATTACKER = "203.0.113.66";
const OWNER = "198.51.100.20";

const send = signInFrom;

/** The n-th /64 inside 2001:db8:aaaa::/48. */
const inOne48 = (n: number) => `2001:db8:aaaa:${n.toString(16)}::1`;

let rt: TestRuntime;
let clock: ReturnType<typeof manualClock>;
let ring: LogRing;

type AuditRow = { actor: string; error_code: string | null; repeat_count: number; detail: string };
const signInRows = () => rt.handle.sqlite.prepare(`select actor, error_code, repeat_count, detail from audit_events where kind = 'auth.sign_in' order by seq`).all() as AuditRow[];

beforeAll(async () => installPeerAddressStamp());

beforeEach(async () => {
  clock = manualClock(Date.parse("2026-03-01T10:00:00Z"));
  ring = new LogRing();
  rt = createTestRuntime({ prefix: "sign-in-flood-", install: true, clock, log: createLogger({ level: "info", ring }) });
  await createUser(createSqliteAuthStore(rt.handle), { ...ADMIN, role: "admin", nowMs: clock.now() });
});
afterEach(async () => rt.dispose());

describe("a flood of refused sign-ins", () => {
  it("[#26-1] 300 refusals from one address become two counted audit entries, not 300 rows", async () => {
    for (let i = 0; i < 300; i++) await send({ ...ADMIN, password: `wrong-${i}` }, ATTACKER);
    await rt.refusals.flush();
    const rows = signInRows();
    // One entry per (code, account, client): the guesses that were checked, and the 429s.
    expect(rows.map((r) => r.error_code).sort()).toEqual(["invalid_credentials", "too_many_requests"]);
    expect(rows.reduce((sum, r) => sum + r.repeat_count, 0)).toBe(300);
    const adminId = (rt.handle.sqlite.prepare("select id from users").get() as { id: string }).id;
    expect(new Set(rows.map((r) => r.actor))).toEqual(new Set([adminId]));
    // The client is the keyed hash the log lines use, never the address.
    for (const row of rows) expect(JSON.parse(row.detail).client).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(rows)).not.toContain(ATTACKER);
  });

  it("[#26-1] the audit API shows the counts, and an admin's own entries stay on the first page", async () => {
    rt.handle.sqlite.prepare(`insert into users (id, email, role, password_hash, created_at) values ('u-a', 'a@example.com', 'admin', 'x', '2026-01-01')`).run();
    rt.handle.sqlite.prepare(`insert into auth_sessions (token_hash, user_id, created_at_ms, expires_at_ms) values (?, 'u-a', 0, 9e15)`).run(hashSessionToken("t"));
    rt.handle.sqlite.prepare(`insert into audit_events (at_ms, actor, kind, result, error_code, detail) values (?, 'u-a', 'backup.created', 'ok', null, '{}')`).run(clock.now());
    for (let i = 0; i < 120; i++) await send({ email: "nobody@example.com", password: `wrong-${i}` }, ATTACKER);
    await rt.refusals.flush();
    const page = await (await auditGet(new Request(`${BASE}/api/v1/system/audit?limit=10`, { headers: { cookie: "wsr_session=t" } }))).json();
    const kinds = page.entries.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain("backup.created");
    const refused = page.entries.filter((e: { kind: string }) => e.kind === "auth.sign_in");
    expect(refused.reduce((sum: number, e: { count: number }) => sum + e.count, 0)).toBe(120);
    expect(refused.every((e: { actor: string }) => e.actor === "unknown")).toBe(true);
  });

  it("[#26-1] the log ring keeps what came before: refusal lines are rate-limited, then summed up", async () => {
    rt.log.warn({ event: "backup_failed", code: "backup_failed" }, "earlier evidence");
    for (let i = 0; i < 300; i++) await send({ ...ADMIN, password: `wrong-${i}` }, ATTACKER);
    const lines = ring.list();
    expect(lines.some((l) => l.fields.event === "backup_failed")).toBe(true);
    const refusedLines = lines.filter((l) => l.fields.event === "login_refused");
    expect(refusedLines.length).toBeLessThanOrEqual(10);
    // The next window says how many were left out.
    clock.advance(60_000);
    await send({ ...ADMIN, password: "wrong-again" }, ATTACKER);
    const summary = ring.list().find((l) => l.fields.event === "log_lines_suppressed");
    expect(summary?.fields).toMatchObject({ kind: "login_refused", suppressed: 300 - refusedLines.length });
  });

  it("[#26-1] clients past the per-window cap share one entry", async () => {
    const audit = createRefusalAudit({ store: () => rt.stores.audit, clock, timers: rt.timers, log: rt.log, distinctPerWindow: 5 });
    for (let i = 0; i < 50; i++) await audit.record({ actor: "unknown", client: `c${i}`, errorCode: "invalid_credentials", atMs: clock.now() });
    await audit.flush();
    const rows = signInRows();
    expect(rows).toHaveLength(6);
    expect(rows.at(-1)).toMatchObject({ repeat_count: 45 });
    expect(JSON.parse(rows.at(-1)!.detail).client).toBe("many");
    // A new window starts new entries.
    clock.advance(15 * 60 * 1000);
    await audit.record({ actor: "unknown", client: "c1", errorCode: "invalid_credentials", atMs: clock.now() });
    await audit.stop();
    expect(signInRows()).toHaveLength(7);
  });

  it("[#26-1] login_throttle rows are pruned once their windows and locks have ended", async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => send({ email: `u${i}@example.com`, password: "wrong-password" }, `192.0.${i + 1}.1`)));
    const rows = () => (rt.handle.sqlite.prepare("select count(*) as n from login_throttle").get() as { n: number }).n;
    // An address, a network and an account row per attempt.
    expect(rows()).toBe(36);
    expect(await pruneThrottle(rt.stores.auth, { nowMs: clock.now() })).toBe(0);
    clock.advance(60 * 60 * 1000 + 1);
    await pruneThrottle(rt.stores.auth, { nowMs: clock.now() });
    expect(rows()).toBe(0);
    // A known address is kept for its 30 days.
    expect((await send(ADMIN, OWNER)).status).toBe(200);
    clock.advance(KNOWN_ADDRESS_MS - 1000);
    await pruneThrottle(rt.stores.auth, { nowMs: clock.now() });
    expect(rows()).toBe(1);
    clock.advance(2000);
    await pruneThrottle(rt.stores.auth, { nowMs: clock.now() });
    expect(rows()).toBe(0);
  });
});

describe("address rotation against one account", () => {
  it("[#26-7] 40 fresh addresses of one /48 get no guesses while the account is locked, and one per delay after", async () => {
    for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) expect((await send({ ...ADMIN, password: `wrong-${i}` }, ATTACKER)).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await send({ ...ADMIN, password: `guess-${i}` }, inOne48(i))).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(0);
    clock.advance(accountDelayMs(ACCOUNT_FREE_FAILURES));
    const next: number[] = [];
    for (let i = 40; i < 50; i++) next.push((await send({ ...ADMIN, password: `guess-${i}` }, inOne48(i))).status);
    expect(next.filter((s) => s === 401)).toHaveLength(1);
  });

  it("[#26-7] the owner at a known address still signs in while strangers keep the account locked", async () => {
    expect((await send(ADMIN, OWNER)).status).toBe(200);
    for (let i = 0; i < 6; i++) await send({ ...ADMIN, password: `wrong-${i}` }, inOne48(i));
    expect((await send(ADMIN, OWNER)).status).toBe(200);
    // The trade-off: the right password from an address never seen waits out the delay too.
    for (let i = 0; i < 6; i++) await send({ ...ADMIN, password: `wrong-again-${i}` }, inOne48(100 + i));
    expect((await send(ADMIN, "192.0.2.77")).status).toBe(429);
  });

  it("[#26-7] a network that failed NET_MAX_FAILURES times in the window is locked for every fresh address in it", async () => {
    await rt.stores.auth.saveThrottle({ key: "net:2001:db8:aaaa::/48", failures: NET_MAX_FAILURES - 1, windowStartMs: clock.now(), lockedUntilMs: null });
    expect((await send({ email: "x@example.com", password: "wrong-password" }, inOne48(1))).status).toBe(401);
    const fresh = await send({ email: "y@example.com", password: "wrong-password" }, inOne48(2));
    expect(fresh.status).toBe(429);
    expect(Number(fresh.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another network is not affected; the window ends the lock.
    expect((await send({ email: "y@example.com", password: "wrong-password" }, "2001:db8:bbbb::1")).status).toBe(401);
    clock.advance(ADDRESS_WINDOW_MS);
    expect((await send({ email: "y@example.com", password: "wrong-password" }, inOne48(3))).status).toBe(401);
  });

  it("[#26-7] 40 parallel attempts from one /48 hold at most a few places in the hash gate; the owner at a known address gets through", async () => {
    expect((await send(ADMIN, OWNER)).status).toBe(200);
    const before = rt.signIn.gate.stats().total;
    const flood = Array.from({ length: 40 }, (_, i) => send({ email: `spray${i}@example.com`, password: "wrong-password" }, inOne48(i)));
    const owner = send(ADMIN, OWNER);
    const statuses = (await Promise.all(flood)).map((r) => r.status);
    expect((await owner).status).toBe(200);
    const hashed = rt.signIn.gate.stats().total - before - 1;
    expect(hashed).toBeLessThanOrEqual(PASSWORD_WORK_PER_NETWORK);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(40 - PASSWORD_WORK_PER_NETWORK);
  });
});
