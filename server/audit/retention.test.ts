import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock, type Timers } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createLogger } from "@/server/log";
import { auditRetentionDays, schedulePruning } from "./retention";
import { createSqliteAuditStore } from "./sqlite-store";

const DAY = 24 * 60 * 60 * 1000;
let db: TestDb;
beforeEach(() => {
  db = createTestDb();
});
afterEach(() => db.close());

describe("audit retention", () => {
  it("AUDIT_RETENTION_DAYS: default 180, a positive whole number otherwise", () => {
    expect(auditRetentionDays({})).toBe(180);
    expect(auditRetentionDays({ AUDIT_RETENTION_DAYS: "30" })).toBe(30);
    for (const bad of ["0", "-5", "1.5", "ten", ""]) expect(auditRetentionDays({ AUDIT_RETENTION_DAYS: bad })).toBe(180);
  });

  it("the scheduler prunes at start and again every day, until the store is gone", async () => {
    const store = createSqliteAuditStore(db.db);
    // A timer callback starts an asynchronous prune; SQLite answers within the same turn of the loop.
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const clock = manualClock(1000 * DAY);
    const pending: Array<{ fn: () => void; ms: number }> = [];
    const timers: Timers = { setTimeout: (fn, ms) => pending.push({ fn, ms }), clearTimeout: () => {} };
    const entry = (atMs: number) => store.insert({ atMs, actor: "cli", kind: "backup.created", result: "ok", errorCode: null, detail: "{}" });
    await entry(1000 * DAY - 31 * DAY); // older than 30 days: pruned at start
    await entry(1000 * DAY - 10 * DAY); // pruned on the 21st day after
    let open = true;
    await schedulePruning({ store: () => (open ? store : null), clock, timers, log: createLogger({ level: "silent" }), days: 30 });
    const count = async () => (await store.list({ beforeSeq: null, kind: null, limit: 10 })).length;
    expect(await count()).toBe(1);
    expect(pending.map((p) => p.ms)).toEqual([DAY]);
    clock.advance(21 * DAY);
    pending.shift()!.fn();
    await settle();
    expect(await count()).toBe(0);
    open = false;
    pending.shift()!.fn();
    await settle();
    expect(pending).toEqual([]);
  });
});
