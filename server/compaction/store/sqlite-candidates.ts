// Candidate rows for SQLite, read with keyset pagination only: tasks by id,
// each task's sessions by id, each session's tool rows by rowid. No OFFSET;
// every page is one complete statement (no reader transaction held between
// pages). Headers use `octet_length` and `typeof`, which do not load the
// text, so bodies are fetched only after a page has been planned within its
// byte limits, and a value that is not text is never fetched.
//
// Stored bytes stay exact both ways: a body whose decoded text shows U+FFFD
// (which every invalid UTF-8 sequence decodes to) is read again as its bytes
// and, unless those are valid UTF-8 after all, handed on as a byte string;
// such a row is written and guarded through `cast(? as text)` of its bytes.
import { isUtf8 } from "node:buffer";
import "server-only";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import { collectBeforeHugeRow, type HugeRowOptions } from "./collect-garbage";
import { refusalOf } from "./sqlite-refusal";
import { tuples } from "./sqlite-tuples";
import { TOOL_MESSAGE_TYPES, type CompactionVerbs, type PassBounds, type RowBody, type RowHeader } from "../store";

const TYPE_LIST = TOOL_MESSAGE_TYPES.map((type) => `'${type}'`).join(", ");
// A bare `limit ?` lets the planner read the bound value as a hint, and
// SQLite then re-prepares the statement whenever a new value is bound: every
// call of a pass. `cast(? as integer)` is no hint (the plans are the same),
// so these statements are prepared once.
const LIMIT = "limit cast(? as integer)";

export const CANDIDATE_SQL = {
  bounds: `select (select max(id) from tasks) as upperTaskId, (select max(rowid) from messages) as upperMessageRowid`,
  tasks: `select id from tasks where id > ? and id <= ? order by id ${LIMIT}`,
  firstTasks: `select id from tasks where id <= ? order by id ${LIMIT}`,
  sessions: `select id from task_sessions where task_id = ? and id > ? order by id ${LIMIT}`,
  headers: `select rowid, id, type, coalesce(octet_length(metadata), 0) as bytes, typeof(metadata) <> 'text' as notText
            from messages indexed by messages_session_rowid_idx
            where session_id = ? and rowid > ? and rowid <= ? and type in (${TYPE_LIST})
            order by rowid ${LIMIT}`,
  body: `select rowid, id, type, metadata, coalesce(octet_length(metadata), 0) as bytes, updated_at as updatedAt from messages where rowid = ? and session_id = ?`,
  bodyBytes: `select cast(metadata as blob) as bytes from messages where rowid = ? and typeof(metadata) = 'text'`,
  // The guarded write: only when the stored text is still exactly what was read.
  guardedUpdate: `update messages set metadata = ? where rowid = ? and metadata = ?`,
  // The same for a row whose text is not valid UTF-8, on its bytes.
  guardedUpdateBytes: `update messages set metadata = cast(? as text) where rowid = ? and metadata = cast(? as text)`,
} as const;

/** The header statement's columns, in the order its tuples are read. */
const HEADER_COLUMNS = ["rowid", "id", "type", "bytes", "notText"] as const;

/** The body as the store hands it on: text as read, bytes for text that is not UTF-8, null for a value that is not text. */
function storedText(sqlite: Sqlite, row: Omit<RowBody, "metadata" | "encoding"> & { metadata: unknown }): RowBody {
  const { metadata, ...rest } = row;
  if (typeof metadata !== "string") return { ...rest, metadata: null, encoding: "utf8" };
  if (!metadata.includes("\ufffd")) return { ...rest, metadata, encoding: "utf8" };
  const raw = statement(sqlite, CANDIDATE_SQL.bodyBytes).get(row.rowid) as { bytes: Buffer } | undefined;
  if (!raw || isUtf8(raw.bytes)) return { ...rest, metadata, encoding: "utf8" };
  return { ...rest, metadata: raw.bytes.toString("latin1"), encoding: "bytes" };
}

type CandidateVerbs = Pick<
  CompactionVerbs,
  "captureBounds" | "listTaskIds" | "listSessionIds" | "listToolRowHeaders" | "readToolRowBodies" | "replaceMetadataIfUnchanged"
>;

const ids = (rows: unknown[]) => (rows as Array<{ id: string }>).map((row) => row.id);

export function sqliteCandidateVerbs(sqlite: Sqlite, options: HugeRowOptions = {}): CandidateVerbs {
  return {
    captureBounds() {
      const row = statement(sqlite, CANDIDATE_SQL.bounds).get() as PassBounds;
      return { upperTaskId: row.upperTaskId, upperMessageRowid: row.upperMessageRowid };
    },
    listTaskIds({ afterTaskId, upperTaskId, limit }) {
      return ids(
        afterTaskId === null
          ? statement(sqlite, CANDIDATE_SQL.firstTasks).all(upperTaskId, limit)
          : statement(sqlite, CANDIDATE_SQL.tasks).all(afterTaskId, upperTaskId, limit),
      );
    },
    listSessionIds({ taskId, afterSessionId, limit }) {
      // "" sorts before every id: from the start.
      return ids(statement(sqlite, CANDIDATE_SQL.sessions).all(taskId, afterSessionId ?? "", limit));
    },
    listToolRowHeaders({ sessionId, afterRowid, upperRowid, limit }) {
      const headers = tuples(statement(sqlite, CANDIDATE_SQL.headers), HEADER_COLUMNS);
      const rows = headers.all(sessionId, afterRowid ?? 0, upperRowid, limit) as Array<[number, string, string, number, number]>;
      return rows.map(([rowid, id, type, bytes, notText]): RowHeader => (notText ? { rowid, id, type, bytes, notText: true } : { rowid, id, type, bytes }));
    },
    readToolRowBodies({ sessionId, rows }) {
      const body = statement(sqlite, CANDIDATE_SQL.body);
      const bodies: RowBody[] = [];
      for (const header of rows) {
        // A pretty-printed 30 MB row reaches the reducer as a JS string: the
        // previous huge row's garbage goes first.
        collectBeforeHugeRow(options, header.bytes);
        const row = body.get(header.rowid, sessionId) as (Omit<RowBody, "metadata" | "encoding"> & { metadata: unknown }) | undefined;
        if (row) bodies.push(storedText(sqlite, row));
      }
      return bodies;
    },
    replaceMetadataIfUnchanged(row) {
      try {
        if (row.encoding === "bytes") {
          return statement(sqlite, CANDIDATE_SQL.guardedUpdateBytes).run(Buffer.from(row.next, "latin1"), row.rowid, Buffer.from(row.observed, "latin1")).changes === 1;
        }
        return statement(sqlite, CANDIDATE_SQL.guardedUpdate).run(row.next, row.rowid, row.observed).changes === 1;
      } catch (error) {
        throw refusalOf(error, row.rowid);
      }
    },
  };
}
