// #26 item 1 on PostgreSQL: the counted refusals and the throttle pruning
// are each store's own SQL (an upsert on the aggregate key, a delete by
// window end), so the flood that sign-in-flood.test.ts sends on SQLite is
// sent here through the real login route to a PostgreSQL runtime.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { installPeerAddressStamp } from "@/server/http/peer-address";
import { engineSql, type EngineSql } from "@/server/http/route-test-support";
import { createLogger } from "@/server/log";
import { LogRing } from "@/server/logs/ring";
import { createEngineTestRuntime, type EngineTestRuntime } from "@/server/runtime-test-support";
import { pruneThrottle } from "./throttle";
import { signInFrom } from "./login-test-support";
import { createUser } from "./users";

const ADMIN = { email: "admin@example.com", password: "admin-password-long" };
const ATTACKER = "203.0.113.66";

const send = signInFrom;

beforeAll(async () => installPeerAddressStamp());

describe.skipIf(!TEST_POSTGRES_URL)("a flood of refused sign-ins [postgres]", () => {
  let rt: EngineTestRuntime;
  let sql: EngineSql;
  let clock: ReturnType<typeof manualClock>;
  let ring: LogRing;
  let adminId: string;

  beforeEach(async () => {
    clock = manualClock(Date.parse("2026-03-01T10:00:00Z"));
    ring = new LogRing();
    rt = await createEngineTestRuntime("postgres", { prefix: "sign-in-flood-pg-", install: true, clock, log: createLogger({ level: "info", ring }) });
    sql = engineSql(rt);
    adminId = (await createUser(rt.stores.auth, { ...ADMIN, role: "admin", nowMs: clock.now() })).id;
  });
  afterEach(async () => rt.dispose());

  const auditRows = async () =>
    (
      await sql.all<{ actor: string; error_code: string | null; repeat_count: number | string; detail: string }>(
        `select actor, error_code, repeat_count, detail from audit_events where kind = 'auth.sign_in' order by seq`,
      )
    ).map((row) => ({ ...row, repeat_count: Number(row.repeat_count) }));

  it("[#26-1] 300 refusals from one address change the audit table by two counted entries; the log ring keeps what came before", async () => {
    rt.log.warn({ event: "backup_failed", code: "backup_failed" }, "earlier evidence");
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) statuses.add((await send({ ...ADMIN, password: `wrong-${i}` }, ATTACKER)).status);
    expect([...statuses].sort()).toEqual([401, 429]);
    await rt.refusals.flush();
    const rows = await auditRows();
    expect(rows.map((r) => r.error_code).sort()).toEqual(["invalid_credentials", "too_many_requests"]);
    expect(rows.reduce((sum, r) => sum + r.repeat_count, 0)).toBe(300);
    expect(new Set(rows.map((r) => r.actor))).toEqual(new Set([adminId]));
    expect(JSON.stringify(rows)).not.toContain(ATTACKER);
    const lines = ring.list();
    expect(lines.some((l) => l.fields.event === "backup_failed")).toBe(true);
    expect(lines.filter((l) => l.fields.event === "login_refused").length).toBeLessThanOrEqual(10);
  });

  it("[#26-1] login_throttle rows are pruned once their windows have ended", async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => send({ email: `u${i}@example.com`, password: "wrong-password" }, `192.0.${i + 1}.1`)));
    const rows = async () => Number((await sql.all<{ n: number | string }>("select count(*) as n from login_throttle"))[0]!.n);
    // An address, a network and an account row per attempt.
    expect(await rows()).toBe(36);
    expect(await pruneThrottle(rt.stores.auth, { nowMs: clock.now() })).toBe(0);
    clock.advance(60 * 60 * 1000 + 1);
    await pruneThrottle(rt.stores.auth, { nowMs: clock.now() });
    expect(await rows()).toBe(0);
  });
});
