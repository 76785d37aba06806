import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { checkTaskEligibility } from "./eligibility";
import { PROBE_SQL } from "../store/sqlite-eligibility";
import {
  CUTOFF_MS,
  OLD,
  RECENT,
  insertMessage,
  insertSession,
  insertTask,
  insertTurn,
  seedOldTask,
  steppingClock, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-elig-");
});
afterEach(() => t.close());

const clock = manualClock(0);
const check = (taskId = "t1", cutoffMs = CUTOFF_MS) => checkTaskEligibility({ store: storeOf(t.sqlite), taskId, cutoffMs, clock });

/** One old completed task t1 with session s1, turn u1 and message m1. */
function seedBase() {
  seedOldTask(t.sqlite, "t1");
}

describe("eligibility: activity", () => {
  it("[TPR-ELIG-05] an old, finished task is eligible with its latest activity", async () => {
    seedBase();
    expect(await check()).toEqual({ eligible: true, activityMs: Date.parse(OLD) });
  });

  it("[TPR-ELIG-05] a rename (task updated_at) extends protection", async () => {
    seedBase();
    t.sqlite.prepare("update tasks set updated_at = ?, updated_at_ms = ? where id = 't1'").run(RECENT, Date.parse(RECENT));
    expect(await check()).toEqual({ eligible: false, reason: "recent_activity" });
  });

  it.each([
    ["session updated", "update task_sessions set updated_at = ?, updated_at_ms = ?"],
    ["session completed", "update task_sessions set completed_at = ?, completed_at_ms = ?"],
    ["session started", "update task_sessions set started_at = ?, started_at_ms = ?"],
    ["turn started", "update turns set started_at = ?, started_at_ms = ?"],
    ["turn completed", "update turns set completed_at = ?, completed_at_ms = ?"],
    ["message created", "update messages set created_at = ?, created_at_ms = ?"],
    ["message updated", "update messages set updated_at = ?, updated_at_ms = ?"],
  ])("[TPR-ELIG-05] recent %s activity protects the task", async (_label, sql) => {
    seedBase();
    t.sqlite.prepare(sql).run(RECENT, Date.parse(RECENT));
    expect(await check()).toEqual({ eligible: false, reason: "recent_activity" });
  });

  it("[TPR-ELIG-04] activity exactly at the cutoff is retained; one millisecond earlier is eligible", async () => {
    seedBase();
    const at = new Date(CUTOFF_MS).toISOString();
    t.sqlite.prepare("update messages set updated_at = ?, updated_at_ms = ?").run(at, CUTOFF_MS);
    expect(await check()).toEqual({ eligible: false, reason: "recent_activity" });
    expect(await check("t1", CUTOFF_MS + 1)).toEqual({ eligible: true, activityMs: CUTOFF_MS });
  });

  it("[TPR-ELIG-06] timestamps with offsets are compared as instants, not text", async () => {
    seedBase();
    const cutoffMs = Date.parse("2025-12-31T23:40:00Z");
    // Text-wise "2026-01-01T00:30:00+01:00" sorts after the cutoff, but it is 23:30Z.
    t.sqlite.prepare("update messages set updated_at = ?, updated_at_ms = ?").run("2026-01-01T00:30:00+01:00", Date.parse("2025-12-31T23:30:00Z"));
    expect(await check("t1", cutoffMs)).toEqual({ eligible: true, activityMs: Date.parse("2025-12-31T23:30:00Z") });
    t.sqlite.prepare("update tasks set updated_at = ?, updated_at_ms = ?").run("2025-12-31T23:45:00Z", Date.parse("2025-12-31T23:45:00Z"));
    expect(await check("t1", cutoffMs)).toEqual({ eligible: false, reason: "recent_activity" });
  });

  it("[TPR-ELIG-05] a task without sessions is judged by its own timestamps", async () => {
    insertTask(t.sqlite, { id: "t1" });
    expect(await check()).toEqual({ eligible: true, activityMs: Date.parse(OLD) });
  });
});

describe("eligibility: invalid or missing timestamps", () => {
  it.each([
    ["task updated", "update tasks set updated_at = 'yesterday', updated_at_ms = null"],
    ["task created (empty)", "update tasks set created_at = '', created_at_ms = null"],
    ["session updated", "update task_sessions set updated_at = '2025-02-30T00:00:00Z', updated_at_ms = null"],
    ["session started", "update task_sessions set started_at = '2025-01-01 25:00', started_at_ms = null"],
    ["session completed", "update task_sessions set completed_at = 'not a time', completed_at_ms = null"],
    ["turn started", "update turns set started_at = '', started_at_ms = null"],
    ["turn completed", "update turns set completed_at = '2025-01-01T00:00:00', completed_at_ms = null"],
    ["message created", "update messages set created_at = '01/01/2025', created_at_ms = null"],
    ["message updated", "update messages set updated_at = '2025-13-01T00:00:00Z', updated_at_ms = null"],
  ])("[TPR-ELIG-07] an invalid %s timestamp makes the task ineligible", async (_label, sql) => {
    seedBase();
    t.sqlite.exec(sql);
    expect(await check()).toEqual({ eligible: false, reason: "invalid_timestamp" });
  });

  it("[TPR-ELIG-07] absent optional session stamps are not invalid", async () => {
    insertTask(t.sqlite, { id: "t1" });
    insertSession(t.sqlite, { id: "s1", taskId: "t1", state: "CANCELLED", startedAt: null, completedAt: null });
    expect(await check()).toEqual({ eligible: true, activityMs: Date.parse(OLD) });
  });
});

describe("eligibility: blockers", () => {
  it.each(["SCHEDULING", "IN_PROGRESS", "WAITING_FOR_INPUT"])("[TPR-ELIG-13] live task state %s protects the task", async (state) => {
    seedBase();
    t.sqlite.prepare("update tasks set state = ?").run(state);
    expect(await check()).toEqual({ eligible: false, reason: "live_task" });
  });

  it.each(["TODO", "CREATED", "REVIEW", "BLOCKED", "COMPLETED", "FAILED", "CANCELLED"])("[TPR-ELIG-05] idle task state %s does not block", async (state) => {
    seedBase();
    t.sqlite.prepare("update tasks set state = ?").run(state);
    expect((await check()).eligible).toBe(true);
  });

  it.each(["CREATED", "STARTING", "RUNNING", "WAITING_FOR_INPUT"])("[TPR-ELIG-08] a %s session protects the task", async (state) => {
    seedBase();
    insertSession(t.sqlite, { id: "t1-s2", taskId: "t1", state, completedAt: null });
    expect(await check()).toEqual({ eligible: false, reason: "session_active" });
  });

  it.each(["COMPLETED", "FAILED", "CANCELLED"])("[TPR-ELIG-08] %s sessions are terminal", async (state) => {
    seedBase();
    t.sqlite.prepare("update task_sessions set state = ?").run(state);
    expect((await check()).eligible).toBe(true);
  });

  it("[TPR-ELIG-09] an open turn protects the task", async () => {
    seedBase();
    insertTurn(t.sqlite, { id: "u2", sessionId: "t1-s1", completedAt: null });
    expect(await check()).toEqual({ eligible: false, reason: "open_turn" });
  });

  it("[TPR-ELIG-10] a queued message protects the task", async () => {
    seedBase();
    t.sqlite.prepare("insert into queued_messages (id, session_id, content, queued_at, queued_at_ms) values ('q1', 't1-s1', 'hi', ?, ?)").run(OLD, Date.parse(OLD));
    expect(await check()).toEqual({ eligible: false, reason: "queued_message" });
  });

  it("[TPR-ELIG-11] queued workflow admission protects the task", async () => {
    seedBase();
    t.sqlite.exec("update tasks set queued_for_step = 1");
    expect(await check()).toEqual({ eligible: false, reason: "queued_admission" });
  });

  it.each([
    ["permission_request", "{}"],
    ["permission_request", '{"status":""}'],
    ["permission_request", '{"status":"pending"}'],
    ["clarification_request", '{"question":"which?"}'],
    ["clarification_request", '{"status":"pending"}'],
    ["permission_request", "{not json"],
  ])("[TPR-ELIG-12] a pending %s (%s) protects the task", async (type, metadata) => {
    seedBase();
    insertMessage(t.sqlite, { id: "p1", sessionId: "t1-s1", turnId: "t1-u1", type, metadata });
    expect(await check()).toEqual({ eligible: false, reason: "pending_input" });
  });

  it("[TPR-ELIG-12] an answered permission request does not block", async () => {
    seedBase();
    insertMessage(t.sqlite, { id: "p1", sessionId: "t1-s1", turnId: "t1-u1", type: "permission_request", metadata: '{"status":"approved"}' });
    expect((await check()).eligible).toBe(true);
  });

  it.each(["QUEUED", "RUNNING"])("[TPR-ELIG-13] a %s run protects the task", async (state) => {
    seedBase();
    t.sqlite.prepare("insert into runs (id, session_id, state) values ('r1', 't1-s1', ?)").run(state);
    expect(await check()).toEqual({ eligible: false, reason: "live_run" });
  });

  it.each(["SUCCEEDED", "FAILED", "CANCELLED"])("[TPR-ELIG-13] a %s run does not block", async (state) => {
    seedBase();
    t.sqlite.prepare("insert into runs (id, session_id, state) values ('r1', 't1-s1', ?)").run(state);
    expect((await check()).eligible).toBe(true);
  });

  it.each([
    ["task", "update tasks set state = 'ARCHIVED'"],
    ["session", "update task_sessions set state = 'PAUSED'"],
    ["run", "insert into runs (id, session_id, state) values ('r1', 't1-s1', 'PAUSED')"],
  ])("[TPR-ELIG-14] an unknown %s state protects the task", async (_label, sql) => {
    seedBase();
    t.sqlite.exec(sql);
    expect(await check()).toEqual({ eligible: false, reason: "unknown_state" });
  });

  it("[TPR-ELIG-14] a message whose turn belongs to another session is missing ownership", async () => {
    seedBase();
    seedOldTask(t.sqlite, "t2");
    insertMessage(t.sqlite, { id: "stray", sessionId: "t1-s1", turnId: "t2-u1" });
    expect(await check()).toEqual({ eligible: false, reason: "missing_ownership" });
    expect((await check("t2")).eligible).toBe(true);
  });

  it("[TPR-ELIG-14] a task that does not exist is reported, not eligible", async () => {
    expect(await check("ghost")).toEqual({ eligible: false, reason: "task_missing" });
  });
});

describe("eligibility: cost and side effects", () => {
  it("[TPR-ELIG-15] every probe is answered through an index, never a scan of messages", async () => {
    for (const [name, sql] of Object.entries(PROBE_SQL)) {
      const plan = t.sqlite
        .prepare(`explain query plan ${sql}`)
        .all("x")
        .map((row) => (row as { detail: string }).detail)
        .join(" | ");
      expect(plan, name).not.toMatch(/SCAN (messages|m\b)/);
      expect(plan, name).not.toMatch(/SCAN (tasks|task_sessions|turns|queued_messages|runs)\b(?! USING)/);
      if (/from messages/.test(sql)) expect(plan, name).toMatch(/USING (COVERING )?INDEX messages_session_/);
    }
  });

  it("[TPR-ELIG-16] a task whose probes exceed 200 ms is retained with eligibility_budget", async () => {
    seedBase();
    // Each clock reading advances 30 ms: the probes together pass 200 ms.
    const slow = steppingClock(0, 30);
    expect(await checkTaskEligibility({ store: storeOf(t.sqlite), taskId: "t1", cutoffMs: CUTOFF_MS, clock: slow })).toEqual({
      eligible: false,
      reason: "eligibility_budget",
    });
    const single = steppingClock(0, 201);
    expect(await checkTaskEligibility({ store: storeOf(t.sqlite), taskId: "t1", cutoffMs: CUTOFF_MS, clock: single })).toEqual({
      eligible: false,
      reason: "eligibility_budget",
    });
  });

  it("[TPR-ELIG-17][TPR-ELIG-18] probing changes no timestamp and stops nothing", async () => {
    seedBase();
    t.sqlite.exec("update tasks set state = 'IN_PROGRESS'");
    t.sqlite.exec("insert into runs (id, session_id, state) values ('r1', 't1-s1', 'RUNNING')");
    insertTurn(t.sqlite, { id: "open", sessionId: "t1-s1", completedAt: null });
    const snapshot = () =>
      ["tasks", "task_sessions", "turns", "messages", "runs"].map((table) => t.sqlite.prepare(`select * from ${table} order by 1`).all());
    const before = snapshot();
    const changes = () => (t.sqlite.prepare("select total_changes() as n").get() as { n: number }).n;
    const changesBefore = changes();
    expect((await check()).eligible).toBe(false);
    expect(changes()).toBe(changesBefore);
    expect(snapshot()).toEqual(before);
  });
});
