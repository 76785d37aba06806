// A task far bigger than the old ownership probe handled (it visited every
// message of the session): the skip-scan follows turns, so the full probe
// stays inside its real 200 ms budget and the task is compacted. The 500k
// case is benchmarked (scripts/bench/compaction.ts --task-messages 500000).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { runCleanupPass } from "../cleanup/pass";
import { checkTaskEligibility } from "./eligibility";
import { CUTOFF_MS, NOW_MS, OLD, armPolicy, countMarkedRows, insertSession, insertTask, insertTurn, shellMetadata, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-big-task-");
  await armPolicy(t.sqlite);
});
afterEach(() => t.close());

const BIG_MESSAGES = 150_000;
const TURNS = 1_500;
const TOOL_EVERY = 500;

function seedBigTask(MESSAGES = BIG_MESSAGES) {
  insertTask(t.sqlite, { id: "big" });
  insertSession(t.sqlite, { id: "big-s1", taskId: "big" });
  for (let i = 0; i < TURNS; i++) insertTurn(t.sqlite, { id: `big-u${String(i).padStart(5, "0")}`, sessionId: "big-s1" });
  const insert = t.sqlite.prepare(
    `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
     values (?, 'big-s1', ?, 'agent', ?, 'c', ?, ?, ?, ?, ?, ?)`,
  );
  const ms = parseRfc3339(OLD);
  t.sqlite.transaction(() => {
    for (let i = 0; i < MESSAGES; i++) {
      const tool = i % TOOL_EVERY === 0;
      const turn = `big-u${String(Math.floor((i * TURNS) / MESSAGES)).padStart(5, "0")}`;
      insert.run(`big-m${i}`, turn, tool ? "tool_execute" : "message", tool ? shellMetadata(`c${i}`, "x".repeat(2000)) : "{}", `c${i}`, OLD, ms, OLD, ms);
    }
  })();
}

describe("a big task", () => {
  it("[TPR-ELIG-15][TPR-ELIG-16] a 150k-message task is eligible within the real probe budget and compacted", async () => {
    seedBigTask();
    const verdict = await checkTaskEligibility({ store: storeOf(t.sqlite), taskId: "big", cutoffMs: CUTOFF_MS, clock: systemClock });
    expect(verdict.eligible).toBe(true);
    const result = await runCleanupPass({ store: storeOf(t.sqlite), clock: { now: () => NOW_MS }, operationId: "run-1", wait: async () => {} });
    expect(result.state).toBe("succeeded");
    expect(countMarkedRows(t.sqlite)).toBe(BIG_MESSAGES / TOOL_EVERY);
  });

  it("[TPR-ELIG-14] the ownership skip-scan still finds a message whose turn belongs to another session", async () => {
    seedBigTask(20_000);
    insertSession(t.sqlite, { id: "other-s", taskId: "big" });
    insertTurn(t.sqlite, { id: "big-u00700x", sessionId: "other-s" });
    t.sqlite.prepare("update messages set turn_id = 'big-u00700x' where id = 'big-m7000'").run();
    expect(await checkTaskEligibility({ store: storeOf(t.sqlite), taskId: "big", cutoffMs: CUTOFF_MS, clock: systemClock })).toEqual({
      eligible: false,
      reason: "missing_ownership",
    });
  });
});
