import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { PAGE_LIMITS, planMessagePage } from "./candidates";
import { CANDIDATE_SQL } from "../store/sqlite-candidates";
import { START_POSITION, scanCandidates, type ScanHandlers, type ScanPosition } from "./scan";
import { insertMessage, seedOldTask, shellMetadata, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-cand-");
});
afterEach(() => t.close());

const MIB = 1024 * 1024;

function bigRow(id: string, bytes: number): number {
  const stdout = "y".repeat(bytes - shellMetadata("c", "").length);
  return insertMessage(t.sqlite, { id, sessionId: "t1-s1", turnId: "t1-u1", metadata: shellMetadata("c", stdout) });
}

/** Walks everything and records the pages it saw. */
async function walk(position: ScanPosition = START_POSITION, extra: Partial<ScanHandlers> = {}) {
  const bounds = await storeOf(t.sqlite).captureBounds();
  const pages: Array<{ taskId: string; sessionId: string; rowids: number[] }> = [];
  const outcome = await scanCandidates({
    store: storeOf(t.sqlite),
    bounds,
    position,
    handlers: {
      enterTask: () => true,
      page: async ({ taskId, sessionId, page }) => {
        pages.push({ taskId, sessionId, rowids: page.rows.map((r) => r.rowid) });
        return "advance";
      },
      moved: () => {},
      shouldStop: () => false,
      limits: () => PAGE_LIMITS,
      ...extra,
    },
  });
  return { pages, outcome, bounds };
}

describe("candidates: keyset pagination", () => {
  it("[TPR-BAT-01] walks tasks, sessions and rowids in key order without OFFSET", async () => {
    seedOldTask(t.sqlite, "b", 3);
    seedOldTask(t.sqlite, "a", 2);
    const { pages, outcome } = await walk();
    expect(outcome.finished).toBe(true);
    expect(pages.map((p) => p.taskId)).toEqual(["a", "b"]);
    expect(pages[0]!.rowids).toEqual([4, 5]);
    expect(pages[1]!.rowids).toEqual([1, 2, 3]);
    for (const sql of Object.values(CANDIDATE_SQL)) expect(sql.toLowerCase()).not.toContain("offset");
  });

  it("[TPR-BAT-01] rows and tasks added after the pass started are not chased", async () => {
    seedOldTask(t.sqlite, "a", 2);
    const bounds = await storeOf(t.sqlite).captureBounds();
    insertMessage(t.sqlite, { id: "late", sessionId: "a-s1", turnId: "a-u1" });
    seedOldTask(t.sqlite, "z", 2);
    const seen: number[] = [];
    await scanCandidates({
      store: storeOf(t.sqlite),
      bounds,
      position: START_POSITION,
      handlers: {
        enterTask: () => true,
        page: async ({ page }) => {
          seen.push(...page.rows.map((r) => r.rowid));
          return "advance";
        },
        moved: () => {},
        shouldStop: () => false,
        limits: () => PAGE_LIMITS,
      },
    });
    expect(seen).toEqual([1, 2]);
  });

  it("[TPR-BAT-01] the header page is an index search of one session, never a scan", async () => {
    const plan = (t.sqlite.prepare(`explain query plan ${CANDIDATE_SQL.headers}`).all("s", 0, 10, 100) as Array<{ detail: string }>)
      .map((r) => r.detail)
      .join(" | ");
    expect(plan).toContain("SEARCH messages USING INDEX messages_session_rowid_idx (session_id=? AND rowid>? AND rowid<?)");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  it("[TPR-BAT-03] a walk resumed from a position inside a session continues after it", async () => {
    seedOldTask(t.sqlite, "a", 3);
    seedOldTask(t.sqlite, "b", 2);
    const { pages } = await walk({ afterTaskId: "a", afterSessionId: "a-s1", afterMessageRowid: 2 });
    expect(pages.map((p) => p.rowids)).toEqual([[3], [4, 5]]);
    const after = await walk({ afterTaskId: "a", afterSessionId: null, afterMessageRowid: null });
    expect(after.pages.map((p) => p.rowids)).toEqual([[4, 5]]);
  });

  it("[TPR-BAT-04] no reader transaction is held between pages", async () => {
    seedOldTask(t.sqlite, "a", 250);
    const other = new Database(t.file);
    let checked = 0;
    await walk(START_POSITION, {
      page: async () => {
        expect(t.sqlite.inTransaction).toBe(false);
        // Another connection writes and truncates the WAL: that fails (busy=1)
        // while any reader still holds an older snapshot.
        other.prepare("update tasks set title = title where id = 'a'").run();
        const [result] = other.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
        expect(result!.busy).toBe(0);
        checked += 1;
        return "advance";
      },
    });
    other.close();
    expect(checked).toBe(3);
  });
});

describe("candidates: page limits", () => {
  it("[TPR-BAT-05] at most 100 rows per page", async () => {
    seedOldTask(t.sqlite, "t1", 150);
    const bounds = await storeOf(t.sqlite).captureBounds();
    const first = await planMessagePage(storeOf(t.sqlite), { sessionId: "t1-s1", afterRowid: null, bounds });
    expect(first.rows).toHaveLength(100);
    expect(first.exhausted).toBe(false);
    const second = await planMessagePage(storeOf(t.sqlite), { sessionId: "t1-s1", afterRowid: first.lastRowid, bounds });
    expect(second.rows).toHaveLength(50);
    expect(second.exhausted).toBe(true);
  });

  it("[TPR-BAT-05][TPR-BAT-06] pages stay within 8 MiB, a larger row travels alone, rows over 32 MiB are oversize and never read", async () => {
    seedOldTask(t.sqlite, "t1", 0);
    const r1 = bigRow("m1", 3 * MIB);
    const r2 = bigRow("m2", 3 * MIB);
    const r3 = bigRow("m3", 3 * MIB);
    const r4 = bigRow("m4", 12 * MIB);
    const r5 = bigRow("m5", 33 * MIB);
    const r6 = bigRow("m6", 1 * MIB);
    const bounds = await storeOf(t.sqlite).captureBounds();
    const plan = (afterRowid: number | null) => planMessagePage(storeOf(t.sqlite), { sessionId: "t1-s1", afterRowid, bounds });
    const p1 = await plan(null);
    expect(p1.rows.map((r) => r.rowid)).toEqual([r1, r2]);
    expect(p1.rows.every((r) => !("metadata" in r))).toBe(true);
    const p2 = await plan(p1.lastRowid);
    expect(p2.rows.map((r) => r.rowid)).toEqual([r3]);
    const p3 = await plan(p2.lastRowid);
    expect(p3.rows.map((r) => r.rowid)).toEqual([r4]);
    const p4 = await plan(p3.lastRowid);
    expect(p4.oversize.map((r) => r.rowid)).toEqual([r5]);
    expect(p4.rows.map((r) => r.rowid)).toEqual([r6]);
    expect(p4.exhausted).toBe(true);
    const bodies = await storeOf(t.sqlite).readToolRowBodies({ sessionId: "t1-s1", rows: p4.rows });
    expect(bodies.map((b) => b.rowid)).toEqual([r6]);
    expect(bodies[0]!.metadata?.length).toBe(1 * MIB);
  });

  it("[TPR-BAT-05] non-tool messages are not candidates", async () => {
    seedOldTask(t.sqlite, "t1", 1);
    insertMessage(t.sqlite, { id: "chat", sessionId: "t1-s1", turnId: "t1-u1", type: "message", metadata: "{}" });
    const page = await planMessagePage(storeOf(t.sqlite), { sessionId: "t1-s1", afterRowid: null, bounds: await storeOf(t.sqlite).captureBounds() });
    expect(page.rows.map((r) => r.type)).toEqual(["tool_execute"]);
  });
});
