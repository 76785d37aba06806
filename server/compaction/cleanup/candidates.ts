// Candidate pages for payload removal. Rows are read with keyset pagination
// only (tasks by id, sessions by id, a session's tool rows by rowid) up to
// upper bounds captured once when a pass starts, so rows written later are
// never chased. A page is planned from stored byte lengths before any body
// is fetched, so the driver never materializes more than the limits allow.
import "server-only";
import type { CompactionStore, PassBounds, RowHeader } from "../store";

const MIB = 1024 * 1024;
export const PAGE_LIMITS = { maxRows: 100, maxBytes: 8 * MIB, rowLimitBytes: 32 * MIB } as const;
export type PageLimits = { maxRows: number; maxBytes: number; rowLimitBytes: number };

export type PlannedPage = {
  /** Rows whose bodies may be fetched together within the limits. */
  rows: RowHeader[];
  /** Rows above the single-row limit: counted, never read. */
  oversize: RowHeader[];
  /** Rows whose stored value is not text (a BLOB, NULL): counted `not_text`, never read. */
  notText: RowHeader[];
  /** Highest rowid this page consumed (the cursor after it), or null if none. */
  lastRowid: number | null;
  /** True when the session has no rows left after this page. */
  exhausted: boolean;
};

/** Plans one page of a session's tool rows from stored lengths only. */
export async function planMessagePage(
  store: CompactionStore,
  options: { sessionId: string; afterRowid: number | null; bounds: PassBounds; limits?: PageLimits },
): Promise<PlannedPage> {
  const { sessionId, afterRowid, bounds, limits = PAGE_LIMITS } = options;
  if (bounds.upperMessageRowid === null) return { rows: [], oversize: [], notText: [], lastRowid: null, exhausted: true };
  // One header more than the page may take tells whether the session ends here.
  const headers = await store.listToolRowHeaders({ sessionId, afterRowid, upperRowid: bounds.upperMessageRowid, limit: limits.maxRows + 1 });
  const rows: RowHeader[] = [];
  const oversize: RowHeader[] = [];
  const notText: RowHeader[] = [];
  let bytes = 0;
  let lastRowid: number | null = null;
  let consumed = 0;
  for (const header of headers) {
    if (consumed === limits.maxRows) break;
    if (header.notText) {
      notText.push(header);
    } else if (header.bytes > limits.rowLimitBytes) {
      oversize.push(header);
    } else if (header.bytes > limits.maxBytes) {
      // A single larger row travels alone.
      if (rows.length > 0) break;
      rows.push(header);
      lastRowid = header.rowid;
      consumed += 1;
      break;
    } else if (bytes + header.bytes > limits.maxBytes) {
      break;
    } else {
      rows.push(header);
      bytes += header.bytes;
    }
    lastRowid = header.rowid;
    consumed += 1;
  }
  const exhausted = consumed === headers.length;
  return { rows, oversize, notText, lastRowid, exhausted };
}
