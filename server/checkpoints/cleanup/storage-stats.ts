// Rows and payload bytes per checkpoint table and the largest threads. Sizes
// come from length() on the blob columns, which SQLite answers from the
// record header without loading blob content; nothing is decoded.
import type { TableUsage, ThreadUsage } from "@/lib/checkpoints/api";
import type { Sqlite } from "./thread-rows";

export const LARGEST_THREADS = 10;

/** False before the saver created its tables (no thread ever ran). */
export function checkpointTablesExist(sqlite: Sqlite): boolean {
  const row = sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')").get() as { n: number };
  return row.n === 2;
}

export function tableUsage(sqlite: Sqlite): { checkpoints: TableUsage; writes: TableUsage } {
  if (!checkpointTablesExist(sqlite)) return { checkpoints: { rows: 0, bytes: 0 }, writes: { rows: 0, bytes: 0 } };
  const c = sqlite
    .prepare("SELECT count(*) AS rows, coalesce(sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)), 0) AS bytes FROM checkpoints")
    .get() as TableUsage;
  const w = sqlite.prepare("SELECT count(*) AS rows, coalesce(sum(coalesce(length(value), 0)), 0) AS bytes FROM writes").get() as TableUsage;
  return { checkpoints: c, writes: w };
}

export function largestThreads(sqlite: Sqlite, limit = LARGEST_THREADS): ThreadUsage[] {
  if (!checkpointTablesExist(sqlite)) return [];
  return sqlite
    .prepare(
      `WITH c AS (SELECT thread_id, count(*) AS n, sum(coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)) AS b FROM checkpoints GROUP BY thread_id),
            w AS (SELECT thread_id, count(*) AS n, sum(coalesce(length(value), 0)) AS b FROM writes GROUP BY thread_id)
       SELECT c.thread_id AS threadId, c.n AS checkpoints, coalesce(w.n, 0) AS writes, c.b + coalesce(w.b, 0) AS bytes
       FROM c LEFT JOIN w ON w.thread_id = c.thread_id ORDER BY bytes DESC, threadId LIMIT ?`,
    )
    .all(limit) as ThreadUsage[];
}
