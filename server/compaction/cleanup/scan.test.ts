import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { PAGE_LIMITS } from "./candidates";
import { START_POSITION, scanCandidates, type ScanPosition } from "./scan";
import { insertMessage, insertSession, insertTask, insertTurn, shellMetadata, storeOf } from "../test-support";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb();
  for (const task of ["a", "b"]) {
    insertTask(t.sqlite, { id: task });
    for (const session of ["s1", "s2"]) {
      insertSession(t.sqlite, { id: `${task}-${session}`, taskId: task });
      insertTurn(t.sqlite, { id: `${task}-${session}-u`, sessionId: `${task}-${session}` });
      for (let i = 0; i < 3; i += 1) {
        insertMessage(t.sqlite, { id: `${task}-${session}-m${i}`, sessionId: `${task}-${session}`, turnId: `${task}-${session}-u`, metadata: shellMetadata(`${task}${session}${i}`, "x") });
      }
    }
  }
});
afterEach(() => t.close());

/** Walks everything, stopping once before each session's first page, resuming each time. */
async function walkWithStops(stopAtSessionStart: boolean): Promise<string[]> {
  const seen: string[] = [];
  const stoppedBefore = new Set<string>();
  let position: ScanPosition = { ...START_POSITION };
  const bounds = await storeOf(t.sqlite).captureBounds();
  for (let round = 0; round < 50; round += 1) {
    const outcome = await scanCandidates({
      store: storeOf(t.sqlite),
      bounds,
      position,
      handlers: {
        enterTask: () => true,
        page: async ({ sessionId, page }) => {
          if (stopAtSessionStart && !stoppedBefore.has(sessionId)) {
            stoppedBefore.add(sessionId);
            return "stop";
          }
          seen.push(...page.rows.map((r) => String(r.rowid)));
          return "advance";
        },
        moved: () => {},
        shouldStop: () => false,
        limits: () => ({ ...PAGE_LIMITS, maxRows: 2 }),
      },
    });
    position = outcome.position;
    if (outcome.finished) return seen;
  }
  throw new Error("never finished");
}

describe("scan positions", () => {
  it("[TPR-BAT-03] a stop before a session's first page resumes that session instead of skipping it", async () => {
    const all = await walkWithStops(false);
    expect(all).toHaveLength(12);
    expect(await walkWithStops(true)).toEqual(all);
  });
});
