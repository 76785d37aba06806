// What compaction removed from one task, read from the live database before
// a dry run or a restore: every tool row of the task in conversation order
// (sessions in insertion order, rows by rowid), and for each compacted one
// its marker. Rows are read in keyset pages of headers; only the bodies of
// rows whose text names the marker key are fetched (compacted rows are the
// small ones), a page of them at a time within a byte budget.
import "server-only";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { REPORT_MESSAGE_LIMIT } from "@/lib/task-compaction/api";
import { readMarker, type Marker } from "./marker";
import type { RestoreStore, ToolRowHeader } from "./store";

const HEADER_PAGE = 500;
/** Bodies read per statement: at most this many bytes (a larger row goes alone). */
const BODY_PAGE_BYTES = 8 * 1024 * 1024;

export type CompactedRow = { rowid: number; marker: Marker };

export type TaskPlan = {
  /** Compacted rows by message id. */
  compacted: Map<string, CompactedRow>;
  /** Tool rows without a readable marker. */
  notCompacted: number;
  /** The first REPORT_MESSAGE_LIMIT tool rows in conversation order. */
  listed: Array<{ id: string; compacted: boolean; removedBytes: number }>;
  truncated: boolean;
  removedBytes: number;
  span: { firstRemovedMs: number; lastRemovedMs: number } | null;
};

async function readMarkers(store: RestoreStore, headers: ToolRowHeader[]): Promise<Map<number, Marker>> {
  const markers = new Map<number, Marker>();
  let page: number[] = [];
  let bytes = 0;
  const flush = async () => {
    for (const row of await store.readRows(page)) {
      const marker = row.metadata === null ? null : readMarker(row.metadata);
      if (marker) markers.set(row.rowid, marker);
    }
    page = [];
    bytes = 0;
  };
  for (const header of headers) {
    if (!header.marked) continue;
    if (page.length > 0 && bytes + header.bytes > BODY_PAGE_BYTES) await flush();
    page.push(header.rowid);
    bytes += header.bytes;
  }
  if (page.length > 0) await flush();
  return markers;
}

export async function planTask(store: RestoreStore, taskId: string): Promise<TaskPlan> {
  const plan: TaskPlan = { compacted: new Map(), notCompacted: 0, listed: [], truncated: false, removedBytes: 0, span: null };
  for (const sessionId of await store.listSessionIds(taskId)) {
    let after: number | null = null;
    for (;;) {
      const headers = await store.listToolRowHeaders({ sessionId, afterRowid: after, limit: HEADER_PAGE });
      if (headers.length === 0) break;
      const markers = await readMarkers(store, headers);
      for (const header of headers) {
        const marker = markers.get(header.rowid);
        if (marker) {
          plan.compacted.set(header.id, { rowid: header.rowid, marker });
          plan.removedBytes += marker.removedBytes;
          const at = parseRfc3339(marker.removedAt)!;
          plan.span = plan.span
            ? { firstRemovedMs: Math.min(plan.span.firstRemovedMs, at), lastRemovedMs: Math.max(plan.span.lastRemovedMs, at) }
            : { firstRemovedMs: at, lastRemovedMs: at };
        } else {
          plan.notCompacted += 1;
        }
        if (plan.listed.length < REPORT_MESSAGE_LIMIT) plan.listed.push({ id: header.id, compacted: marker !== undefined, removedBytes: marker?.removedBytes ?? 0 });
        else plan.truncated = true;
      }
      after = headers[headers.length - 1]!.rowid;
      if (headers.length < HEADER_PAGE) break;
    }
  }
  return plan;
}
