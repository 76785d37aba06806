// The ONE module that writes message metadata. Append, replace, upsert
// (fallback create), fixture import and the demo seeder all come through
// here, and every one of them ends in `writeMetadata`, so a rule about what
// metadata may reach the database (the compaction replacement-write guard)
// has exactly one place to live: `metadataToStore`, called by `writeMetadata`.
//
// Metadata is JSON text and stays text: it is never JSON.parse'd here. The
// store checks it is a JSON object and extracts tool_call_id natively (SQLite:
// json1), which keeps number literals and key order untouched and runs at
// native speed on multi-MB payloads.
import { AppError } from "@/server/errors";
import type { MessageRecord, WorkspaceStore } from "./store";

export type MessageInput = MessageRecord;

export type MessageWriteResult = { rowid: number; id: string; toolCallId: string | null; updatedAt: string };

type MetadataWrite =
  | { kind: "insert"; message: MessageInput }
  | { kind: "replace"; messageId: string; metadata: string; updatedAt: string; content?: string };

/**
 * The stored text of a metadata object: only whitespace is dropped, number
 * literals, string escapes and key order are kept as written. Storing one
 * canonical form makes export -> import -> export byte-identical.
 */
async function canonicalMetadata(store: WorkspaceStore, metadata: string): Promise<string> {
  const text = await store.canonicalJsonObject(metadata);
  if (text === null) throw new AppError("invalid_request", "Message metadata must be a JSON object");
  return text;
}

/**
 * Decides the metadata text that is stored, given what is stored now
 * (null for a new row) and what the caller asked for: the compaction guard
 * keeps a stored removal marker and refuses replaying a compacted tool call
 * (TPR-TX-04, TPR-TX-05).
 */
async function metadataToStore(
  store: WorkspaceStore,
  write: { messageId: string; type: string; sessionId: string; previous: string | null; next: string },
): Promise<string> {
  const toolCallId = write.previous === null ? await store.toolCallIdOf(write.next) : null;
  return store.guardMetadata({ ...write, toolCallId });
}

/** The single path by which message metadata reaches the database. */
function writeMetadata(store: WorkspaceStore, write: MetadataWrite): Promise<MessageWriteResult> {
  return store.writeTransaction(async (tx): Promise<MessageWriteResult> => {
    if (write.kind === "insert") {
      const m = write.message;
      const metadata = await metadataToStore(tx, {
        messageId: m.id,
        type: m.type,
        sessionId: m.sessionId,
        previous: null,
        next: await canonicalMetadata(tx, m.metadata),
      });
      const toolCallId = await tx.toolCallIdOf(metadata);
      const { rowid } = await tx.insertMessage({ ...m, metadata, toolCallId });
      return { rowid, id: m.id, toolCallId, updatedAt: m.updatedAt ?? "" };
    }
    const stored = await tx.readMessage(write.messageId);
    if (!stored) throw new AppError("not_found", "Message not found");
    const metadata = await metadataToStore(tx, {
      messageId: write.messageId,
      type: stored.type,
      sessionId: stored.sessionId,
      previous: stored.metadata,
      next: await canonicalMetadata(tx, write.metadata),
    });
    const toolCallId = await tx.toolCallIdOf(metadata);
    await tx.updateMessage({ rowid: stored.rowid, metadata, toolCallId, content: write.content ?? null, updatedAt: write.updatedAt });
    return { rowid: stored.rowid, id: write.messageId, toolCallId, updatedAt: write.updatedAt };
  });
}

async function assertSessionAndTurn(store: WorkspaceStore, sessionId: string, turnId: string | null): Promise<void> {
  if (!(await store.recordExists("session", sessionId))) throw new AppError("not_found", "Session not found");
  if (turnId === null) return;
  if ((await store.sessionOfTurn(turnId)) !== sessionId) {
    throw new AppError("invalid_request", "turnId does not name a turn of this session");
  }
}

/** Appends a new message; its id must be unused. */
export function appendMessage(store: WorkspaceStore, message: MessageInput): Promise<MessageWriteResult> {
  return store.writeTransaction(async (tx) => {
    await assertSessionAndTurn(tx, message.sessionId, message.turnId);
    if (await tx.readMessage(message.id)) throw new AppError("conflict", "A message with this id already exists");
    return writeMetadata(tx, { kind: "insert", message });
  });
}

/** Replaces a message's metadata and bumps its updated_at. */
export function replaceMessageMetadata(
  store: WorkspaceStore,
  input: { messageId: string; metadata: string; updatedAt: string },
): Promise<MessageWriteResult> {
  return writeMetadata(store, { kind: "replace", ...input });
}

/**
 * Fallback create: replaces metadata and content of an existing message of
 * the same session, or appends it. Recovery paths use this, so it must go
 * through the same write as every replacement.
 */
export function upsertMessage(store: WorkspaceStore, message: MessageInput): Promise<MessageWriteResult> {
  return store.writeTransaction(async (tx) => {
    const stored = await tx.readMessage(message.id);
    if (!stored) return appendMessage(tx, message);
    if (stored.sessionId !== message.sessionId) {
      throw new AppError("conflict", "A message with this id belongs to another session");
    }
    return writeMetadata(tx, {
      kind: "replace",
      messageId: message.id,
      metadata: message.metadata,
      content: message.content,
      updatedAt: message.updatedAt ?? message.createdAt ?? "",
    });
  });
}
