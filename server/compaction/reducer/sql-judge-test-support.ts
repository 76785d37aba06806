// Test-only: runs the SQL-side removal on one stored row of a real SQLite
// file, so tests can compare it with the JS reducer on the same text.
import { isDeepStrictEqual } from "node:util";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { insertMessage, insertSession, insertTask } from "../test-support";
import { sqliteCompactionVerbs } from "../store/sqlite-store";
import { PAGE_ROW_MAX_BYTES } from "../store/sqlite-row-facts";
import { judgeRowFacts } from "./sql-removal";
import type { ReduceResult } from "./reducer";

/**
 * The timeout of a test that judges thousands of generated rows: CPU work
 * only (no waiting), 10-15 s on two cores at load 30, over 30 s for the 10k
 * corpus there.
 */
export const GENERATED_CORPUS_TIMEOUT_MS = 180_000;

export type SqlJudge = {
  /** The SQL-side result for this row, or null when SQL left it to the JS reducer. */
  judge(input: { type: string; metadata: string; removedAt: string }): ReduceResult | null;
  /** How many rows SQL judged (so a comparison is never vacuous). */
  judged(): number;
  close(): void;
};

export function openSqlJudge(): SqlJudge {
  const t: TestDb = createTestDb("ws-sql-judge-");
  insertTask(t.sqlite, { id: "j" });
  insertSession(t.sqlite, { id: "j-s1", taskId: "j" });
  // The SQL judge on its connection, synchronously (the store runs the same verbs in one step).
  const store = sqliteCompactionVerbs(t.sqlite);
  let next = 0;
  let judged = 0;
  return {
    judge({ type, metadata, removedAt }) {
      const id = `j-m${next++}`;
      const rowid = insertMessage(t.sqlite, { id, sessionId: "j-s1", type, metadata });
      try {
        // The header's size picks the statement (a page of small rows, or one
        // large row from a bound JSONB): both must find the same facts.
        const read = (bytes: number) => store.readToolRowFacts({ sessionId: "j-s1", rows: [{ rowid, id, type, bytes }] });
        const [row] = read(0);
        // Just above the page limit: the single-row statement, without the collection huge rows get.
        const [alone] = read(PAGE_ROW_MAX_BYTES + 1);
        if (!isDeepStrictEqual(row, alone)) throw new Error(`page and single-row facts differ: ${JSON.stringify({ page: row?.facts, alone: alone?.facts }).slice(0, 400)}`);
        const result = row ? judgeRowFacts(row, removedAt) : null;
        if (result) judged += 1;
        return result;
      } finally {
        t.sqlite.prepare("delete from messages where rowid = ?").run(rowid);
      }
    },
    judged: () => judged,
    close: () => t.close(),
  };
}
