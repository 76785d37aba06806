// Candidate rows for payload removal, read with keyset pagination only:
// tasks by id, each task's sessions by id, each session's messages by rowid.
// Upper bounds are captured once when a pass starts so rows written later
// are never chased, and no OFFSET is ever used. Every page is one complete
// statement: nothing here holds a reader transaction between pages.
//
// Bodies are fetched only after a page has been planned from stored byte
// lengths (`octet_length` does not load the text), so the driver never
// materializes more than the page limits allow.
import "server-only";
import type { Statement } from "better-sqlite3";
import type { Sqlite } from "@/server/db/client";

/** Message types that can carry a compactable tool payload. */
export const TOOL_MESSAGE_TYPES = ["tool_call", "tool_edit", "tool_read", "tool_execute", "tool_search"] as const;

const MIB = 1024 * 1024;
export const PAGE_LIMITS = { maxRows: 100, maxBytes: 8 * MIB, rowLimitBytes: 32 * MIB } as const;
export type PageLimits = { maxRows: number; maxBytes: number; rowLimitBytes: number };

export type PassBounds = { upperTaskId: string | null; upperMessageRowid: number | null };

export type RowHeader = { rowid: number; id: string; type: string; bytes: number };
export type RowBody = RowHeader & { metadata: string };

export type PlannedPage = {
  /** Rows whose bodies may be fetched together within the limits. */
  rows: RowHeader[];
  /** Rows above the single-row limit: counted, never read. */
  oversize: RowHeader[];
  /** Highest rowid this page consumed (the cursor after it), or null if none. */
  lastRowid: number | null;
  /** True when the session has no rows left after this page. */
  exhausted: boolean;
};

const TYPE_LIST = TOOL_MESSAGE_TYPES.map((type) => `'${type}'`).join(", ");

export const CANDIDATE_SQL = {
  bounds: `select (select max(id) from tasks) as upperTaskId, (select max(rowid) from messages) as upperMessageRowid`,
  tasks: `select id from tasks where id > ? and id <= ? order by id limit ?`,
  firstTasks: `select id from tasks where id <= ? order by id limit ?`,
  sessions: `select id from task_sessions where task_id = ? and id > ? order by id limit ?`,
  headers: `select rowid, id, type, octet_length(metadata) as bytes
            from messages indexed by messages_session_rowid_idx
            where session_id = ? and rowid > ? and rowid <= ? and type in (${TYPE_LIST})
            order by rowid limit ?`,
  body: `select rowid, id, type, metadata, octet_length(metadata) as bytes from messages where rowid = ? and session_id = ?`,
} as const;

type Statements = { [K in keyof typeof CANDIDATE_SQL]: Statement<unknown[], unknown> };
const cache = new WeakMap<Sqlite, Statements>();

function statements(sqlite: Sqlite): Statements {
  let found = cache.get(sqlite);
  if (!found) {
    found = Object.fromEntries(Object.entries(CANDIDATE_SQL).map(([k, sql]) => [k, sqlite.prepare(sql)])) as Statements;
    cache.set(sqlite, found);
  }
  return found;
}

/** Upper cursors of a new pass: the newest task id and message rowid now. */
export function captureBounds(sqlite: Sqlite): PassBounds {
  const row = statements(sqlite).bounds.get() as { upperTaskId: string | null; upperMessageRowid: number | null };
  return { upperTaskId: row.upperTaskId, upperMessageRowid: row.upperMessageRowid };
}

/** The next page of task ids after `afterTaskId`, up to the captured bound. */
export function listTaskIds(sqlite: Sqlite, options: { afterTaskId: string | null; bounds: PassBounds; limit: number }): string[] {
  const { afterTaskId, bounds, limit } = options;
  if (bounds.upperTaskId === null) return [];
  const sql = statements(sqlite);
  const rows = afterTaskId === null ? sql.firstTasks.all(bounds.upperTaskId, limit) : sql.tasks.all(afterTaskId, bounds.upperTaskId, limit);
  return (rows as Array<{ id: string }>).map((row) => row.id);
}

/** The next page of a task's session ids after `afterSessionId` (""= from the start). */
export function listSessionIds(sqlite: Sqlite, options: { taskId: string; afterSessionId: string | null; limit: number }): string[] {
  const rows = statements(sqlite).sessions.all(options.taskId, options.afterSessionId ?? "", options.limit);
  return (rows as Array<{ id: string }>).map((row) => row.id);
}

/** Plans one page of a session's tool rows from stored lengths only. */
export function planMessagePage(
  sqlite: Sqlite,
  options: { sessionId: string; afterRowid: number | null; bounds: PassBounds; limits?: PageLimits },
): PlannedPage {
  const { sessionId, afterRowid, bounds, limits = PAGE_LIMITS } = options;
  if (bounds.upperMessageRowid === null) return { rows: [], oversize: [], lastRowid: null, exhausted: true };
  const headers = statements(sqlite).headers.all(sessionId, afterRowid ?? 0, bounds.upperMessageRowid, limits.maxRows) as RowHeader[];
  const rows: RowHeader[] = [];
  const oversize: RowHeader[] = [];
  let bytes = 0;
  let lastRowid: number | null = null;
  let consumed = 0;
  for (const header of headers) {
    if (header.bytes > limits.rowLimitBytes) {
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
  const exhausted = consumed === headers.length && headers.length < limits.maxRows;
  return { rows, oversize, lastRowid, exhausted };
}

/** Fetches the bodies of planned rows; a row deleted meanwhile is simply absent. */
export function fetchBodies(sqlite: Sqlite, options: { sessionId: string; rows: RowHeader[] }): RowBody[] {
  const stmt = statements(sqlite).body;
  const bodies: RowBody[] = [];
  for (const header of options.rows) {
    const row = stmt.get(header.rowid, options.sessionId) as RowBody | undefined;
    if (row) bodies.push(row);
  }
  return bodies;
}
