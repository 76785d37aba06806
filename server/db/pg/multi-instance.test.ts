// Two app instances on one PostgreSQL database: one worker at a time (the
// advisory-lock lease), a killed holder's pass finished by the other with the
// counts of an uninterrupted run, events reaching the other instance, and
// the policy compare-and-set holding across instances.
import { afterEach, describe, expect, it } from "vitest";
import type { SystemEvent } from "@/lib/events/api";
import { updateCompactionRecord } from "@/server/compaction/policy/record";
import type { Timers } from "@/server/clock";
import { getCompactionStatus } from "@/server/compaction/service";
import type { OpenRuntime } from "@/server/runtime";
import { TEST_POSTGRES_URL } from "./test-db";
import { LEASE_POLL_MS } from "./worker-lease";
import { database as newDatabase, instance as newInstance, killInstance, latestRun, PER_TASK, seed, TASKS, until, type Cleanups } from "./multi-instance-test-support";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const database = () => newDatabase(cleanups);
const instance = (db: { url: string; dir: string }, timers?: Timers) => newInstance(cleanups, db, { timers });

/**
 * Delays up to the lease poll are compressed, except the lease poll itself,
 * which waits for `release()`; anything longer never fires. A pass that
 * finishes under these timers resumed without any wait longer than 15 s.
 */
function takeoverTimers() {
  const held: Array<() => void> = [];
  let released = false;
  const timers: Timers = {
    setTimeout(fn, ms) {
      if (ms > LEASE_POLL_MS) return { parked: true };
      if (ms === LEASE_POLL_MS && !released) {
        const entry = { cancelled: false };
        held.push(() => void (entry.cancelled || fn()));
        return entry;
      }
      return setTimeout(fn, Math.min(ms, 10));
    },
    clearTimeout(handle) {
      if (handle && typeof handle === "object" && "cancelled" in handle) (handle as { cancelled: boolean }).cancelled = true;
      else if (handle && typeof handle === "object" && !("parked" in handle)) clearTimeout(handle as NodeJS.Timeout);
    },
  };
  return {
    timers,
    release() {
      released = true;
      for (const fire of held.splice(0)) setTimeout(fire, 0);
    },
  };
}

function storedRows(rt: OpenRuntime): Promise<Array<{ id: string; metadata: string }>> {
  return rt.stores.workspace.writeTransaction(async () => {
    const rows: Array<{ id: string; metadata: string }> = [];
    for (let t = 0; t < TASKS; t += 1) {
      const task = await rt.stores.workspace.readTaskTree(`t${String(t).padStart(3, "0")}`);
      for (const session of task?.sessions ?? []) for (const message of session.messages) rows.push({ id: message.id, metadata: message.metadata });
    }
    return rows;
  });
}

describe.skipIf(!TEST_POSTGRES_URL)("several instances on one PostgreSQL database", () => {
  it("exactly one instance runs the worker; a killed holder's pass is finished by the other with an uninterrupted run's counts", async () => {
    // The uninterrupted run, on a database of its own with the same data.
    // Armed before start: the scheduled pass starts after readiness (compressed timers).
    const alone = await instance(await database());
    await seed(alone);
    alone.start();
    await until(async () => (await latestRun(alone))?.state === "succeeded", "the uninterrupted pass");
    const expected = (await latestRun(alone))!;
    expect(expected.changedMessages).toBe(TASKS * PER_TASK);
    // Its part is done: left running, its compressed timers keep polling on this process's event loop beside A and B.
    await alone.stop();

    const db = await database();
    const a = await instance(db);
    const b = await instance(db);
    await seed(a);
    // B's browsers see A's progress (LISTEN/NOTIFY).
    const seenByB: SystemEvent[] = [];
    b.bus.subscribe((event) => seenByB.push(event));
    // Kill A after its first committed batch: every session it had ends at once, as when the process dies.
    let batches = 0;
    a.bus.subscribe((event) => {
      if (event.type === "messages_changed" && ++batches === 1) void killInstance(a);
    });
    a.start();
    await until(() => a.compaction.isRunning(), "A holding the lease");
    b.start();
    expect(b.compaction.isRunning()).toBe(false);
    await until(() => b.compaction.isRunning(), "B taking over the lease");
    await until(async () => (await latestRun(b))?.state === "succeeded", "B finishing the pass");

    expect(batches).toBe(1);
    expect(seenByB.some((event) => event.type === "messages_changed")).toBe(true);
    const finished = (await latestRun(b))!;
    expect({ changed: finished.changedMessages, bytes: finished.payloadBytes }).toEqual({ changed: expected.changedMessages, bytes: expected.payloadBytes });
    // No half-written row: each is either compacted (valid JSON with the marker) or untouched; and all were compacted.
    const rows = await storedRows(b);
    expect(rows).toHaveLength(TASKS * PER_TASK);
    for (const row of rows) expect((JSON.parse(row.metadata) as { payload_retention?: unknown }).payload_retention, row.id).toBeDefined();
  }, 60_000);

  it("[#27] a takeover resumes the killed holder's pass at once (no readiness minute), and until then the status says it waits for a worker", async () => {
    const db = await database();
    const a = await instance(db);
    const poll = takeoverTimers();
    const b = await instance(db, poll.timers);
    await seed(a);
    let batches = 0;
    a.bus.subscribe((event) => {
      if (event.type === "messages_changed" && ++batches === 1) void killInstance(a);
    });
    a.start();
    await until(() => a.compaction.isRunning(), "A holding the lease");
    // B asks for the lease once (refused: A holds it), then polls on its timer; having been refused, it resumes at once.
    b.start();
    expect(b.compaction.isRunning()).toBe(false);
    await until(() => batches === 1, "A's first batch");
    // A is gone and nobody holds the lease: B's status says the pass waits for a worker.
    await until(async () => (await getCompactionStatus(b)).waitingForWorker === true, "B's status: waiting for a worker");
    expect((await getCompactionStatus(b)).activeOperation).toMatchObject({ kind: "cleanup" });
    poll.release();
    await until(() => b.compaction.isRunning(), "B taking over the lease");
    await until(async () => (await latestRun(b))?.state === "succeeded", "B finishing the pass with no wait beyond the lease poll");
    expect((await latestRun(b))!.changedMessages).toBe(TASKS * PER_TASK);
    expect(batches).toBe(1);
    const after = await getCompactionStatus(b);
    expect(after.activeOperation).toBeNull();
    expect(after.waitingForWorker).toBeUndefined();
  }, 60_000);

  it("[#27] an instance started after the holder died takes the lease on its first try and resumes the pass within 15 s too", async () => {
    const db = await database();
    const a = await instance(db);
    await seed(a);
    let batches = 0;
    a.bus.subscribe((event) => {
      if (event.type === "messages_changed" && ++batches === 1) void killInstance(a);
    });
    a.start();
    await until(() => batches === 1, "A's first batch");
    const poll = takeoverTimers();
    poll.release();
    const c = await instance(db, poll.timers);
    await until(async () => (await getCompactionStatus(c)).waitingForWorker === true, "C's status before it starts: waiting for a worker");
    c.start();
    await until(async () => (await latestRun(c))?.state === "succeeded", "C finishing the pass with no wait beyond 15 s");
    expect((await latestRun(c))!.changedMessages).toBe(TASKS * PER_TASK);
  }, 60_000);

  it("the policy compare-and-set holds across instances: a stale revision from the other instance is refused", async () => {
    const db = await database();
    const a = await instance(db);
    const b = await instance(db);
    const update = (rt: OpenRuntime, expectedRevision: number) =>
      updateCompactionRecord(rt.stores.compaction, {
        nowMs: Date.now(),
        expectedRevision,
        mutate: (current) => ({ ...current, policy: { ...current.policy, enabled: !current.policy.enabled } }),
      });
    const first = await update(a, 0);
    expect(first.record.policy.revision).toBe(1);
    await expect(update(b, 0)).rejects.toThrow();
    expect((await update(b, 1)).record.policy.revision).toBe(2);
  });
});
