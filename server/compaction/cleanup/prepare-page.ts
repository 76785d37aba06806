// Reads and reduces one planned page OUTSIDE the writer transaction. SQL
// judges each row where the data is (store verb readToolRowFacts: the JSON
// functions remove the paths and return the small skeleton); only rows SQL
// cannot judge (pretty-printed text, structured results, control tools,
// provenance, repeated keys, modify_file's wildcard paths, another engine)
// have their bodies read into JavaScript for the reference reducer.
import "server-only";
import type { CompactionStore, RowHeader } from "../store";
import { reduceToolPayload, type ReduceResult } from "../reducer/reducer";
import { judgeRowFacts } from "../reducer/sql-removal";
import type { PreparedRow } from "./batch";
import type { Tally } from "./tally";

export type PreparedPage = { rows: PreparedRow[]; viaSql: number; viaReducer: number };

export function preparePage(options: { store: CompactionStore; sessionId: string; rows: readonly RowHeader[]; removedAt: string; tally: Tally }): PreparedPage {
  const { store, sessionId, removedAt, tally } = options;
  const rows: PreparedRow[] = [];
  const accept = (row: RowHeader & { updatedAt: string }, result: ReduceResult) => {
    if (result.outcome === "skipped") {
      tally.skipped[result.reason] = (tally.skipped[result.reason] ?? 0) + 1;
      return;
    }
    tally.eligibleMessages += 1;
    rows.push({ rowid: row.rowid, id: row.id, type: row.type, bytes: row.bytes, updatedAt: row.updatedAt, next: result.metadata, removedFields: result.removedFields, removedBytes: result.removedBytes });
  };
  const fallback: RowHeader[] = [];
  let viaSql = 0;
  for (const row of store.readToolRowFacts({ sessionId, rows: options.rows })) {
    const result = judgeRowFacts(row, removedAt);
    if (result === null) {
      fallback.push(row);
      continue;
    }
    viaSql += 1;
    accept(row, result);
  }
  for (const row of store.readToolRowBodies({ sessionId, rows: fallback })) {
    accept(row, reduceToolPayload({ type: row.type, metadata: row.metadata, removedAt }));
  }
  return { rows, viaSql, viaReducer: fallback.length };
}
