import "server-only";
// Admin message mutations behind the HTTP API. Bodies are read from the raw
// request text with the lossless tree parser, so metadata numbers (e.g.
// 9007199254740993, 1.10) and key order reach the store exactly as sent.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { formatUtc, parseRfc3339 } from "@/lib/time/rfc3339";
import { AppError } from "@/server/errors";
import { compactJson, toPlain } from "../json/compact";
import { member, type JsonNode } from "../json/nodes";
import { parseJsonTree } from "../json/scan";
import { JsonSyntaxError } from "../json/syntax-error";
import { appendMessage, replaceMessageMetadata } from "./message-writes";
import type { WorkspaceStore } from "./store";

export const MESSAGE_TYPES = [
  "message",
  "content",
  "tool_call",
  "tool_edit",
  "tool_read",
  "tool_execute",
  "tool_search",
  "progress",
  "log",
  "error",
  "status",
  "permission_request",
  "clarification_request",
  "thinking",
  "agent_plan",
  "todo",
] as const;

/** Largest accepted body: a single message row may hold up to 32 MiB. */
export const MESSAGE_BODY_LIMIT = 32 * 1024 * 1024;

const metadataSchema = z.record(z.string(), z.unknown());

export const appendMessageBody = z.strictObject({
  id: z.string().min(1).max(200).optional(),
  turnId: z.string().min(1).nullable().optional(),
  authorType: z.string().min(1).max(100),
  type: z.enum(MESSAGE_TYPES),
  content: z.string(),
  metadata: metadataSchema,
  createdAt: z
    .string()
    .refine((v) => parseRfc3339(v) !== null, "must be an RFC 3339 timestamp")
    .optional(),
});

export const replaceMetadataBody = z.strictObject({ metadata: metadataSchema });

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`)
    .join("; ");
}

/** Parses a raw JSON body losslessly and checks it against a strict schema. */
export function parseLosslessBody<S extends z.ZodType>(raw: string, schema: S): { data: z.infer<S>; tree: JsonNode } {
  let tree: JsonNode;
  try {
    tree = parseJsonTree(raw.trim() === "" ? "{}" : raw);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw new AppError("invalid_request", `Request body is not valid JSON (line ${error.line}, column ${error.column}: ${error.message})`);
    }
    throw error;
  }
  const parsed = schema.safeParse(toPlain(tree));
  if (!parsed.success) throw new AppError("invalid_request", describeIssues(parsed.error));
  return { data: parsed.data, tree };
}

function metadataText(raw: string, tree: JsonNode): string {
  return compactJson(raw.trim() === "" ? "{}" : raw, member(tree, "metadata")!);
}

export async function appendMessageFromBody(store: WorkspaceStore, options: { sessionId: string; raw: string; nowMs: number }) {
  const { data, tree } = parseLosslessBody(options.raw, appendMessageBody);
  const createdAt = data.createdAt ?? formatUtc(options.nowMs);
  const written = await appendMessage(store, {
    id: data.id ?? `msg_${randomUUID()}`,
    sessionId: options.sessionId,
    turnId: data.turnId ?? null,
    authorType: data.authorType,
    type: data.type,
    content: data.content,
    metadata: metadataText(options.raw, tree),
    createdAt,
    updatedAt: createdAt,
  });
  return {
    message: {
      id: written.id,
      sessionId: options.sessionId,
      turnId: data.turnId ?? null,
      authorType: data.authorType,
      type: data.type,
      toolCallId: written.toolCallId,
      createdAt,
      updatedAt: written.updatedAt,
    },
  };
}

export async function replaceMetadataFromBody(store: WorkspaceStore, options: { messageId: string; raw: string; nowMs: number }) {
  const { tree } = parseLosslessBody(options.raw, replaceMetadataBody);
  const written = await replaceMessageMetadata(store, {
    messageId: options.messageId,
    metadata: metadataText(options.raw, tree),
    updatedAt: formatUtc(options.nowMs),
  });
  return { message: { id: written.id, toolCallId: written.toolCallId, updatedAt: written.updatedAt } };
}
