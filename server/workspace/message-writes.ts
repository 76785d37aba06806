// The ONE module that writes message metadata. Append, replace, upsert
// (fallback create), fixture import and the demo seeder all come through
// here, and every one of them ends in `writeMetadata`, so a rule about what
// metadata may reach the database (the compaction replacement-write guard)
// has exactly one place to live: `metadataToStore`, called by `writeMetadata`.
//
// Metadata is JSON text and stays text: it is never JSON.parse'd here. SQLite
// checks it is a JSON object and extracts tool_call_id natively, which keeps
// number literals and key order untouched and runs at native speed on
// multi-MB payloads.
import { AppError } from "@/server/errors";
import type { Sqlite } from "@/server/db/client";
import { guardMetadataWrite } from "@/server/compaction/write-guard/write-guard";
import { createSqliteCompactionStore } from "@/server/compaction/store/sqlite-store";
import { statement } from "../db/statements";
import { stampRequired } from "./timestamps";

export type MessageInput = {
  id: string;
  sessionId: string;
  turnId: string | null;
  authorType: string;
  type: string;
  content: string;
  /** JSON object text, stored byte-for-byte. */
  metadata: string;
  createdAt: string | null;
  updatedAt: string | null;
};

export type MessageWriteResult = { rowid: number; id: string; toolCallId: string | null; updatedAt: string };

type MetadataWrite =
  | { kind: "insert"; message: MessageInput }
  | { kind: "replace"; messageId: string; metadata: string; updatedAt: string; content?: string };

type StoredMessage = { rowid: number; session_id: string; type: string; metadata: string };

function readStored(sqlite: Sqlite, messageId: string): StoredMessage | undefined {
  return statement(sqlite, `select rowid, session_id, type, metadata from messages where id = ?`).get(messageId) as
    | StoredMessage
    | undefined;
}

/**
 * Checks the text is an RFC 8259 JSON object and returns it minified by
 * SQLite's json(), which only drops whitespace: number literals, string
 * escapes and key order are kept as written. Storing one canonical form
 * makes export -> import -> export byte-identical.
 */
function canonicalMetadata(sqlite: Sqlite, metadata: string): string {
  const row = statement(
    sqlite,
    `select case when json_valid(@m) and json_type(@m) = 'object' then json(@m) end as text`,
  ).get({ m: metadata }) as { text: string | null };
  if (row.text === null) throw new AppError("invalid_request", "Message metadata must be a JSON object");
  return row.text;
}

function toolCallIdOf(sqlite: Sqlite, metadata: string): string | null {
  const row = statement(
    sqlite,
    `select case when json_type(@m, '$.tool_call_id') = 'text' then json_extract(@m, '$.tool_call_id') end as id`,
  ).get({ m: metadata }) as { id: string | null };
  return row.id;
}

/**
 * Decides the metadata text that is stored, given what is stored now
 * (null for a new row) and what the caller asked for: the compaction guard
 * keeps a stored removal marker and refuses replaying a compacted tool call
 * (TPR-TX-04, TPR-TX-05).
 */
function metadataToStore(
  sqlite: Sqlite,
  write: { messageId: string; type: string; sessionId: string; previous: string | null; next: string },
): string {
  const toolCallId = write.previous === null ? toolCallIdOf(sqlite, write.next) : null;
  return guardMetadataWrite(createSqliteCompactionStore(sqlite), { ...write, toolCallId });
}

/** The single path by which message metadata reaches the database. */
function writeMetadata(sqlite: Sqlite, write: MetadataWrite): MessageWriteResult {
  return sqlite.transaction((): MessageWriteResult => {
    if (write.kind === "insert") {
      const m = write.message;
      const metadata = metadataToStore(sqlite, {
        messageId: m.id,
        type: m.type,
        sessionId: m.sessionId,
        previous: null,
        next: canonicalMetadata(sqlite, m.metadata),
      });
      const toolCallId = toolCallIdOf(sqlite, metadata);
      const created = stampRequired(m.createdAt);
      const updated = stampRequired(m.updatedAt);
      const info = statement(
        sqlite,
        `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id,
           created_at, created_at_ms, updated_at, updated_at_ms)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(m.id, m.sessionId, m.turnId, m.authorType, m.type, m.content, metadata, toolCallId, created.text, created.ms, updated.text, updated.ms);
      return { rowid: Number(info.lastInsertRowid), id: m.id, toolCallId, updatedAt: updated.text };
    }
    const stored = readStored(sqlite, write.messageId);
    if (!stored) throw new AppError("not_found", "Message not found");
    const metadata = metadataToStore(sqlite, {
      messageId: write.messageId,
      type: stored.type,
      sessionId: stored.session_id,
      previous: stored.metadata,
      next: canonicalMetadata(sqlite, write.metadata),
    });
    const toolCallId = toolCallIdOf(sqlite, metadata);
    const updated = stampRequired(write.updatedAt);
    statement(
      sqlite,
      `update messages set metadata = ?, tool_call_id = ?, content = coalesce(?, content), updated_at = ?, updated_at_ms = ?
       where rowid = ?`,
    ).run(metadata, toolCallId, write.content ?? null, updated.text, updated.ms, stored.rowid);
    return { rowid: stored.rowid, id: write.messageId, toolCallId, updatedAt: updated.text };
  }).immediate();
}

function assertSessionAndTurn(sqlite: Sqlite, sessionId: string, turnId: string | null): void {
  const session = statement(sqlite, `select 1 from task_sessions where id = ?`).get(sessionId);
  if (!session) throw new AppError("not_found", "Session not found");
  if (turnId === null) return;
  const turn = statement(sqlite, `select session_id from turns where id = ?`).get(turnId) as { session_id: string } | undefined;
  if (!turn || turn.session_id !== sessionId) {
    throw new AppError("invalid_request", "turnId does not name a turn of this session");
  }
}

/** Appends a new message; its id must be unused. */
export function appendMessage(sqlite: Sqlite, message: MessageInput): MessageWriteResult {
  return sqlite.transaction(() => {
    assertSessionAndTurn(sqlite, message.sessionId, message.turnId);
    if (readStored(sqlite, message.id)) throw new AppError("conflict", "A message with this id already exists");
    return writeMetadata(sqlite, { kind: "insert", message });
  }).immediate();
}

/** Replaces a message's metadata and bumps its updated_at. */
export function replaceMessageMetadata(
  sqlite: Sqlite,
  input: { messageId: string; metadata: string; updatedAt: string },
): MessageWriteResult {
  return writeMetadata(sqlite, { kind: "replace", ...input });
}

/**
 * Fallback create: replaces metadata and content of an existing message of
 * the same session, or appends it. Recovery paths use this, so it must go
 * through the same write as every replacement.
 */
export function upsertMessage(sqlite: Sqlite, message: MessageInput): MessageWriteResult {
  return sqlite.transaction(() => {
    const stored = readStored(sqlite, message.id);
    if (!stored) return appendMessage(sqlite, message);
    if (stored.session_id !== message.sessionId) {
      throw new AppError("conflict", "A message with this id belongs to another session");
    }
    return writeMetadata(sqlite, {
      kind: "replace",
      messageId: message.id,
      metadata: message.metadata,
      content: message.content,
      updatedAt: message.updatedAt ?? message.createdAt ?? "",
    });
  }).immediate();
}
