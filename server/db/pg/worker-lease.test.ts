// The worker lease on a dedicated session of its own: one holder at a time,
// a lost session is a lost lease (reported, the holder's workers stop), and
// the lock is taken again on a new session.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Timers } from "@/server/clock";
import { createLogger } from "@/server/log";
import { database, instance, type Cleanups } from "./multi-instance-test-support";
import { createSessionSlot } from "./session-slot";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./test-db";
import { createWorkerLease, LEASE_POLL_MS, WORKER_LOCK_KEY, type WorkerLease } from "./worker-lease";

describe.skipIf(!TEST_POSTGRES_URL)("the worker lease on its own session", () => {
  let db: PgTestDb;
  const leases: WorkerLease[] = [];
  // Polls run when the test says so.
  let pending: Array<() => void> = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      expect(ms).toBe(LEASE_POLL_MS);
      pending.push(fn);
      return pending.length;
    },
    clearTimeout: () => undefined,
  };
  const poll = () => {
    const due = pending;
    pending = [];
    for (const fn of due) fn();
  };

  beforeEach(async () => {
    db = await createPgTestDb();
    pending = [];
  });
  afterEach(async () => {
    for (const lease of leases.splice(0)) await lease.stop();
    await db.close();
  });

  const lease = (name: string, lines: string[] = []) => {
    const created = createWorkerLease({
      slot: createSessionSlot(() => db.db.session(`lease ${name}`)),
      timers,
      log: createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } }),
    });
    leases.push(created);
    return created;
  };
  const holderPids = async () =>
    (await db.db.query<{ pid: number }>(`select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 1 and classid::text::bigint * 4294967296 + objid::text::bigint = $1`, [WORKER_LOCK_KEY])).map((row) => row.pid);

  it("one holder at a time; a lost session is a lost lease, reported, and the other instance takes it on its next poll", async () => {
    const linesA: string[] = [];
    const a = lease("a", linesA);
    const b = lease("b");
    const events: string[] = [];
    a.start({ acquired: () => events.push("a acquired"), lost: () => events.push("a lost") });
    await vi.waitFor(() => expect(a.held()).toBe(true), { timeout: 10_000, interval: 5 });
    b.start({ acquired: () => events.push("b acquired"), lost: () => events.push("b lost") });
    await vi.waitFor(() => expect(pending).toHaveLength(1), { timeout: 10_000, interval: 5 });
    expect(b.held()).toBe(false);
    const [pid] = await holderPids();

    await db.db.query("select pg_terminate_backend($1)", [pid]);
    await vi.waitFor(() => expect(events).toEqual(["a acquired", "a lost"]), { timeout: 10_000, interval: 5 });
    expect(a.held()).toBe(false);
    expect(linesA.some((line) => line.includes("worker_lease_lost"))).toBe(true);
    // Both poll again: whoever asks first holds it, the other keeps waiting.
    poll();
    await vi.waitFor(() => expect(a.held() !== b.held()).toBe(true), { timeout: 10_000, interval: 5 });
    expect(events.filter((event) => event.endsWith("acquired"))).toHaveLength(2);
    expect(await holderPids()).toHaveLength(1);
  });

  it("stop releases the lock at once: the next poll of another instance gets it", async () => {
    const a = lease("a");
    const b = lease("b");
    a.start({ acquired: () => undefined, lost: () => undefined });
    await vi.waitFor(() => expect(a.held()).toBe(true), { timeout: 10_000, interval: 5 });
    b.start({ acquired: () => undefined, lost: () => undefined });
    await vi.waitFor(() => expect(pending).toHaveLength(1), { timeout: 10_000, interval: 5 });
    await a.stop();
    expect(await holderPids()).toEqual([]);
    poll();
    await vi.waitFor(() => expect(b.held()).toBe(true), { timeout: 10_000, interval: 5 });
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("a runtime losing its worker lease", () => {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("stops its worker and schedule when the lease's session is lost, and runs fresh ones once it holds the lease again", async () => {
    const rt = await instance(cleanups, await database(cleanups));
    rt.start();
    await vi.waitFor(() => expect(rt.compaction.isRunning()).toBe(true), { timeout: 20_000, interval: 5 });
    const before = rt.compaction;
    expect(rt.checkpoints.schedule.isRunning()).toBe(true);
    const admin = rt.postgres!;
    await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name like '% worker lease' and datname = current_database()`);
    // The compressed lease poll takes it again on a new session; the worker that ran before the loss is never restarted.
    await vi.waitFor(() => expect(rt.compaction !== before && rt.compaction.isRunning()).toBe(true), { timeout: 20_000, interval: 5 });
    expect(before.isRunning()).toBe(false);
    expect(rt.checkpoints.schedule.isRunning()).toBe(true);
  });
});
