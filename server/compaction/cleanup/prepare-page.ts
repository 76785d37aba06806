// Reads and reduces one planned page OUTSIDE the writer transaction. SQL
// judges each row where the data is (store verb readToolRowFacts: the JSON
// functions remove the paths and return the small skeleton); only rows SQL
// cannot judge (pretty-printed text, structured results, control tools,
// provenance, repeated keys, modify_file's wildcard paths, another engine)
// have their bodies read into JavaScript for the reference reducer (on their
// bytes when the stored text is not valid UTF-8; a value that is not text is
// skipped `not_text`).
import "server-only";
import type { CompactionStore, RowHeader } from "../store";
import { COLLECT_BEFORE_ROW_BYTES } from "../store/collect-garbage";
import { reduceBody, type BodyResult } from "../reducer/reduce-body";
import type { StoredEncoding } from "../reducer/reducer";
import { judgeRowFacts } from "../reducer/sql-removal";
import type { PreparedRow } from "./batch";
import type { Tally } from "./tally";

export type PreparedPage = { rows: PreparedRow[]; viaSql: number; viaReducer: number };

/**
 * Rows the reducer judged are written only while their whole text is still
 * the one read (TPR-TX-02), except rows this large: holding a 30 MB text
 * until the batch and binding it again inside the writer transaction took
 * the pass past 300 MiB and the writer's p99 to ~100 ms. Those, like the
 * rows SQL judged, are guarded by their version alone.
 */
export const WHOLE_TEXT_GUARD_MAX_BYTES = COLLECT_BEFORE_ROW_BYTES - 1;

export async function preparePage(options: { store: CompactionStore; sessionId: string; rows: readonly RowHeader[]; removedAt: string; tally: Tally }): Promise<PreparedPage> {
  const { store, sessionId, removedAt, tally } = options;
  const rows: PreparedRow[] = [];
  const accept = (row: RowHeader & { updatedAt: string; tupleVersion?: string }, result: BodyResult, observed: string | null, encoding: StoredEncoding) => {
    if (result.outcome === "skipped") {
      tally.skipped[result.reason] = (tally.skipped[result.reason] ?? 0) + 1;
      return;
    }
    tally.eligibleMessages += 1;
    rows.push({
      rowid: row.rowid,
      id: row.id,
      type: row.type,
      bytes: row.bytes,
      updatedAt: row.updatedAt,
      observed,
      encoding,
      next: result.metadata,
      removedFields: result.removedFields,
      removedBytes: result.removedBytes,
      ...(row.tupleVersion === undefined ? {} : { tupleVersion: row.tupleVersion }),
    });
  };
  const fallback: RowHeader[] = store.judgesRowsInSql === false ? [...options.rows] : [];
  let viaSql = 0;
  for (const row of store.judgesRowsInSql === false ? [] : await store.readToolRowFacts({ sessionId, rows: options.rows })) {
    const result = judgeRowFacts(row, removedAt);
    if (result === null) {
      fallback.push(row);
      continue;
    }
    viaSql += 1;
    // SQL's results are built from a skeleton proven UTF-8.
    accept(row, result, null, "utf8");
  }
  for (const row of fallback.length === 0 ? [] : await store.readToolRowBodies({ sessionId, rows: fallback })) {
    // The row version, where the engine has one, guards the write exactly without keeping the text read.
    const observed = row.tupleVersion === undefined && row.bytes <= WHOLE_TEXT_GUARD_MAX_BYTES ? row.metadata : null;
    accept(row, reduceBody(row, removedAt), observed, row.encoding);
  }
  return { rows, viaSql, viaReducer: fallback.length };
}
