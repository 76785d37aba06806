// The one payload reducer of Messages compaction. Analysis and cleanup both
// call it, so an estimate and the real change come from the same bytes.
//
// Serialization: the stored text is edited in place. Removed members are
// cut out together with the comma and whitespace that separated them, the
// marker is inserted right after the last remaining top-level member, and
// every other character (number literals such as 9007199254740993 or 1e400,
// unknown fields, key order, escapes and any whitespace) stays byte-for-byte
// as stored. Nothing is re-serialized, so the output is a deterministic
// function of the input and the marker is compact JSON.
//
// removed_bytes is the exact UTF-8 difference between input and output,
// marker included. The marker holds its own byte count, so the count is a
// fixpoint: N + len(marker(N)) = bytes cut. Because len grows by one digit
// at 10, 100, 1000..., exactly one cut size per digit boundary has no
// compact solution; there the marker is written as `"removed_bytes": N`
// (one insignificant space) so the count is still exact.
//
// Stored text that is not valid UTF-8 (written by another tool or raw SQL)
// is reduced on its bytes: the caller passes it as a byte string (one char
// per stored byte, `encoding: "bytes"`), every length is then a byte count,
// and the result is a byte string too, so each byte outside the removed
// members is written back unchanged (README, "Stored bytes"). Keys and the
// kind are compared with ASCII names, which read the same either way; tool
// names are read as UTF-8 (an invalid sequence as U+FFFD), as the SQL path
// reads them.
import type { RowSkipReason } from "@/lib/compaction/skip-reasons";
import "server-only";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { findControlTool } from "./control-tools";
import { appendPosition, applyEdits, keptBytes, keptLength, memberDeletionSpans, spanBytes } from "../../json/edit";
import { findMember, stringValue, type JsonNode, type JsonObjectNode, type JsonSpan } from "../../json/nodes";
import { scanJson } from "../../json/scan";
import {
  KINDS_BY_MESSAGE_TYPE,
  PROVENANCE_KEYS,
  isCompactableKind,
  matchPath,
  pathsForKind,
  type CompactableKind,
  type MemberRef,
} from "./removal-rules";
import { classifyResult } from "./structured-result";

export const MARKER_KEY = "payload_retention";
export const MARKER_VERSION = 1;
/** Rows above this many UTF-8 bytes are never parsed: they stay intact as `oversize`. */
export const MAX_METADATA_BYTES = 32 * 1024 * 1024;

// Drawn from the shared list the card localizes: a reason missing there stops compiling here.
export type SkipReason = Extract<RowSkipReason, "unsupported" | "malformed" | "already_removed" | "no_payload" | "oversize">;

/**
 * How a string holds stored metadata: "utf8", the decoded text of valid
 * UTF-8; "bytes", one char (U+0000-U+00FF) per stored byte, for text that is
 * not valid UTF-8 (its bytes are `Buffer.from(text, "latin1")`).
 */
export type StoredEncoding = "utf8" | "bytes";

export type ReduceInput = { type: string; metadata: string; removedAt: string; encoding?: StoredEncoding };

export type ReduceResult =
  | { outcome: "changed"; metadata: string; removedFields: string[]; removedBytes: number }
  | { outcome: "skipped"; reason: SkipReason };

const skip = (reason: SkipReason): ReduceResult => ({ outcome: "skipped", reason });

/**
 * UTF-8 size check without a full count when the length alone decides
 * (each UTF-16 unit is 1 to 3 UTF-8 bytes). Returns the byte count when it
 * had to compute it, so the caller need not count again.
 */
export function measureMetadata(text: string, encoding: StoredEncoding = "utf8"): { oversize: boolean; bytes: number | null } {
  if (text.length > MAX_METADATA_BYTES) return { oversize: true, bytes: null };
  if (encoding === "bytes") return { oversize: false, bytes: text.length };
  if (text.length * 3 <= MAX_METADATA_BYTES) return { oversize: false, bytes: null };
  const bytes = Buffer.byteLength(text, "utf8");
  return { oversize: bytes > MAX_METADATA_BYTES, bytes };
}

type Envelope = { root: JsonObjectNode; kind: CompactableKind; bytes: number | null } | { skip: SkipReason };

// Every check that keeps the whole row: wrong kind for the type, never-
// compacted kinds, provenance keys, control tools, structured results.
function readEnvelope(text: string, type: string, encoding: StoredEncoding): Envelope {
  const allowed = Object.hasOwn(KINDS_BY_MESSAGE_TYPE, type) ? KINDS_BY_MESSAGE_TYPE[type]! : null;
  if (!allowed) return { skip: "unsupported" };
  const size = measureMetadata(text, encoding);
  if (size.oversize) return { skip: "oversize" };
  const scan = scanJson(text, PROVENANCE_KEYS);
  if (!scan.ok || scan.root.kind !== "object") return { skip: "malformed" };
  const root = scan.root;
  if (root.members.some((member) => member.key === MARKER_KEY)) return { skip: "already_removed" };
  const normalized = findMember(root, "normalized");
  if (!normalized || normalized === "duplicate" || normalized.value.kind !== "object") return { skip: "unsupported" };
  const kindMember = findMember(normalized.value, "kind");
  const kind = kindMember && kindMember !== "duplicate" ? stringValue(kindMember.value) : null;
  if (kind === null || !isCompactableKind(kind) || !allowed.includes(kind)) return { skip: "unsupported" };
  const span = normalized.value;
  const provenance =
    scan.flaggedKeys.some((at) => at > span.start && at < span.end) || root.members.some((m) => PROVENANCE_KEYS.has(m.key));
  if (provenance) return { skip: "unsupported" };
  if (namesControlTool(text, encoding, root, normalized.value, kind)) return { skip: "unsupported" };
  if (hasStructuredResult(root, normalized.value, kind)) return { skip: "unsupported" };
  return { root, kind, bytes: size.bytes };
}

/** A string node's text read as UTF-8 (byte strings: an invalid sequence becomes U+FFFD, as a UTF-8 reader sees it). */
function textValue(text: string, encoding: StoredEncoding, node: JsonNode): string | null {
  if (encoding === "utf8" || node.kind !== "string") return stringValue(node);
  return JSON.parse(Buffer.from(text.slice(node.start, node.end), "latin1").toString("utf8")) as string;
}

function namesControlTool(text: string, encoding: StoredEncoding, root: JsonObjectNode, normalized: JsonObjectNode, kind: CompactableKind): boolean {
  const names: (string | null)[] = [];
  for (const member of root.members) {
    if (member.key === "tool_name" || member.key === "toolName") names.push(textValue(text, encoding, member.value));
  }
  const body = findMember(normalized, kind);
  if (body && body !== "duplicate" && body.value.kind === "object") {
    for (const member of body.value.members) {
      if (member.key === "name" || member.key === "tool_name") names.push(textValue(text, encoding, member.value));
    }
  }
  return names.some((name) => name !== null && findControlTool(name) !== null);
}

function hasStructuredResult(root: JsonObjectNode, normalized: JsonObjectNode, kind: CompactableKind): boolean {
  const results = root.members.filter((member) => member.key === "result").map((member) => member.value);
  if (kind === "generic") {
    const body = findMember(normalized, "generic");
    if (body && body !== "duplicate" && body.value.kind === "object") {
      for (const member of body.value.members) if (member.key === "output") results.push(member.value);
    }
  }
  return results.some((node) => classifyResult(node) === "structured");
}

type Removal = { fields: string[]; spans: JsonSpan[]; rootRemoved: Set<number> } | { skip: SkipReason };

function planRemoval(root: JsonObjectNode, kind: CompactableKind): Removal {
  const fields: string[] = [];
  const byObject = new Map<JsonObjectNode, Set<number>>();
  for (const path of pathsForKind(kind)) {
    const match = matchPath(root, path);
    if (match.ambiguous) return { skip: "unsupported" };
    if (match.refs.length === 0) continue;
    fields.push(path);
    match.refs.forEach(({ object, index }: MemberRef) => {
      const set = byObject.get(object) ?? new Set<number>();
      set.add(index);
      byObject.set(object, set);
    });
  }
  if (fields.length === 0) return { skip: "no_payload" };
  const spans = [...byObject].flatMap(([object, indices]) => memberDeletionSpans(object, indices));
  return { fields, spans, rootRemoved: byObject.get(root) ?? new Set() };
}

// A pass builds the same few heads (one removal time per page, a handful of
// field lists) for every row it changes: the last one is kept.
let lastHead: { removedAt: string; fields: readonly string[]; head: string; fixed: number } | null = null;

function markerHead(removedAt: string, fields: readonly string[]): { head: string; fixed: number } {
  const last = lastHead;
  if (last && last.removedAt === removedAt && last.fields.length === fields.length && last.fields.every((field, i) => field === fields[i])) return last;
  const head = `,"${MARKER_KEY}":{"version":${MARKER_VERSION},"removed_at":${JSON.stringify(removedAt)},"removed_fields":${JSON.stringify(fields)},"removed_bytes":`;
  // + the closing brace
  lastHead = { removedAt, fields: [...fields], head, fixed: Buffer.byteLength(head, "utf8") + 1 };
  return lastHead;
}

/** The marker text (with its leading comma) whose own size makes removed_bytes exact, or null if it would not shrink the row. */
export function buildMarker(cutBytes: number, removedAt: string, fields: readonly string[]): { text: string; removedBytes: number } | null {
  const { head, fixed } = markerHead(removedAt, fields);
  for (const pad of ["", " "]) {
    for (let digits = 1; digits <= 16; digits++) {
      const n = cutBytes - fixed - pad.length - digits;
      if (n >= 1 && String(n).length === digits) return { text: `${head}${pad}${n}}`, removedBytes: n };
    }
  }
  return null;
}

/** Removes the tool payload fields of one stored message (see the module comment for the exact serialization). */
export function reduceToolPayload({ type, metadata, removedAt, encoding = "utf8" }: ReduceInput): ReduceResult {
  if (parseRfc3339(removedAt) === null) throw new TypeError("removedAt must be an RFC 3339 timestamp");
  const envelope = readEnvelope(metadata, type, encoding);
  if ("skip" in envelope) return skip(envelope.skip);
  const removal = planRemoval(envelope.root, envelope.kind);
  if ("skip" in removal) return skip(removal.skip);
  const at = appendPosition(envelope.root, removal.rootRemoved);
  // Count whichever side is already cheap: big rows were counted whole by
  // the size check, so only the (small) kept text is counted again.
  // (A byte string's size is known: its length.)
  const cutBytes = envelope.bytes === null ? spanBytes(metadata, removal.spans) : envelope.bytes - (encoding === "bytes" ? keptLength(metadata, removal.spans) : keptBytes(metadata, removal.spans));
  const marker = at === null ? null : buildMarker(cutBytes, removedAt, removal.fields);
  if (at === null || marker === null) return skip("no_payload");
  return {
    outcome: "changed",
    metadata: applyEdits(metadata, removal.spans, [{ at, text: marker.text }]),
    removedFields: removal.fields,
    removedBytes: marker.removedBytes,
  };
}
