// The SQLite implementation of the compaction store. The verbs are written
// as synchronous functions over one connection (`sqliteCompactionVerbs`,
// statements from the per-connection cache, so building them is cheap) and
// lifted onto the asynchronous database (server/db/sqlite-db.ts): a read
// runs in one step on the connection `reading()` names (the writer inside a
// transaction, which sees its own rows; the read connection otherwise), a
// write goes through the writer queue (at once inside a transaction), and
// `writeTransaction` is the database's BEGIN IMMEDIATE transaction around
// the async callback.
import "server-only";
import type { Sqlite } from "@/server/db/client";
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { CompactionStore, CompactionVerbs } from "../store";
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

/** The store's verbs as synchronous functions on one connection. */
export function sqliteCompactionVerbs(sqlite: Sqlite, options: HugeRowOptions = {}): CompactionVerbs {
  return {
    ...sqliteRecordVerbs(sqlite),
    ...sqliteCandidateVerbs(sqlite, options),
    ...sqliteEligibilityVerbs(sqlite),
    ...sqliteRowFactVerbs(sqlite, options),
    listToolCallMetadata({ sessionId, toolCallId, containing }) {
      return (statement(sqlite, TOOL_CALL_ROWS).all(toolCallId, sessionId, containing) as Array<{ metadata: string }>).map((row) => row.metadata);
    },
  };
}

/** Verbs that write: they run on the writer, through its queue. */
const WRITES = new Set<keyof CompactionVerbs>(["writeRecordText", "replaceMetadataIfUnchanged", "replaceMetadataIfVersion"]);

export function createSqliteCompactionStore(db: SqliteDb, options: HugeRowOptions = {}): CompactionStore {
  const byConnection = new WeakMap<Sqlite, CompactionVerbs>();
  const on = (sqlite: Sqlite): CompactionVerbs => {
    let verbs = byConnection.get(sqlite);
    if (!verbs) byConnection.set(sqlite, (verbs = sqliteCompactionVerbs(sqlite, options)));
    return verbs;
  };
  const lifted: Record<string, unknown> = {};
  for (const name of Object.keys(on(db.writer)) as Array<keyof CompactionVerbs>) {
    lifted[name] = WRITES.has(name)
      ? (...args: unknown[]) => db.write((writer) => (on(writer)[name] as (...a: unknown[]) => unknown)(...args))
      : // The connection is picked when the verb is called (in the caller's async context).
        async (...args: unknown[]) => (on(db.reading())[name] as (...a: unknown[]) => unknown)(...args);
  }
  const store: CompactionStore = {
    ...(lifted as Omit<CompactionStore, "writeTransaction" | "inWriteTransaction">),
    writeTransaction: (fn) => db.transaction(() => fn(store)),
    inWriteTransaction: () => db.inTransaction(),
  };
  return store;
}
