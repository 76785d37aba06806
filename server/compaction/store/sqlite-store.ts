// The SQLite implementation of the compaction store. Statements come from
// the one per-connection cache (server/db/statements.ts), so building a store
// is cheap: a few closures over the connection.
import "server-only";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { CompactionStore } from "../store";
import { sqliteCandidateVerbs } from "./sqlite-candidates";
import { sqliteEligibilityVerbs } from "./sqlite-eligibility";
import { sqliteRecordVerbs } from "./sqlite-record";
import type { HugeRowOptions } from "./collect-garbage";
import { sqliteRowFactVerbs } from "./sqlite-row-facts";

// Rows of the same task carrying the tool call id, through the
// (session_id, tool_call_id) index per session of the task; the instr()
// pre-filter keeps large bodies without the marker out of JavaScript.
const TOOL_CALL_ROWS = `SELECT m.metadata FROM task_sessions s
    JOIN task_sessions peer ON peer.task_id = s.task_id
    JOIN messages m ON m.session_id = peer.id AND m.tool_call_id = ?
  WHERE s.id = ? AND instr(m.metadata, ?) > 0`;

export function createSqliteCompactionStore(sqlite: Sqlite, options: HugeRowOptions = {}): CompactionStore {
  const store: CompactionStore = {
    // better-sqlite3 runs a nested transaction function as a savepoint.
    writeTransaction: (fn) => sqlite.transaction(() => fn(store)).immediate(),
    inWriteTransaction: () => sqlite.inTransaction,
    ...sqliteRecordVerbs(sqlite),
    ...sqliteCandidateVerbs(sqlite, options),
    ...sqliteEligibilityVerbs(sqlite),
    ...sqliteRowFactVerbs(sqlite, options),
    listToolCallMetadata({ sessionId, toolCallId, containing }) {
      return (statement(sqlite, TOOL_CALL_ROWS).all(toolCallId, sessionId, containing) as Array<{ metadata: string }>).map((row) => row.metadata);
    },
  };
  return store;
}
