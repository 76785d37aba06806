// The replacement-write guard (TPR-TX-04, TPR-TX-05): once cleanup has
// removed a row's payload, no later write may bring it back.
//
// A foreground writer can hold a stale copy of a message (read before
// cleanup committed) and write it back afterwards. Both writes serialize on
// the SQLite writer, so the guard runs inside the message write transaction
// and looks at what is stored NOW: if that carries a marker, the marker is
// kept verbatim and the removal rules are applied again to the incoming
// metadata. A marker sent by a client is never trusted (it is dropped and
// replaced by the stored one). Rows without a stored marker are written as
// given. Creating a second row for a tool call whose row was compacted
// would replay the removed payload under a new id, so it is refused.
import "server-only";
import { AppError } from "@/server/errors";
import { appendPosition, applyEdits, memberDeletionSpans } from "../../json/edit";
import { stringValue, type JsonObjectNode, type JsonSpan } from "../../json/nodes";
import { scanJson } from "../../json/scan";
import { MARKER_KEY } from "../reducer/reducer";
import type { CompactionStore } from "../store";
import {
  KINDS_BY_MESSAGE_TYPE,
  REMOVAL_PATHS,
  RESULT_PATH,
  isKnownRemovalPath,
  matchPath,
  pathsForKind,
} from "../reducer/removal-rules";

export type StoredMarker = { text: string; fields: string[] | null };

// Cheap pre-check so ordinary rows (no marker) are never scanned.
const mayHaveMarker = (metadata: string) => metadata.includes(`"${MARKER_KEY}"`);

/** The stored marker's raw JSON text and its readable removed_fields, or null when the row has no marker. */
export function readRemovalMarker(metadata: string): StoredMarker | null {
  if (!mayHaveMarker(metadata)) return null;
  const scan = scanJson(metadata);
  if (!scan.ok || scan.root.kind !== "object") return null;
  const member = scan.root.members.findLast((m) => m.key === MARKER_KEY);
  if (!member) return null;
  const text = metadata.slice(member.value.start, member.value.end);
  let fields: string[] | null = null;
  if (member.value.kind === "object") {
    const list = member.value.members.find((m) => m.key === "removed_fields")?.value;
    if (list?.kind === "array") {
      const names = list.items.map(stringValue);
      if (names.every((name): name is string => name !== null)) fields = names;
    }
  }
  return { text, fields };
}

export function hasRemovalMarker(metadata: string): boolean {
  return readRemovalMarker(metadata) !== null;
}

function pathsToReapply(type: string, marker: StoredMarker): string[] {
  // An unreadable marker still means "payload removed": strip every known field.
  if (marker.fields === null) return [...Object.values(REMOVAL_PATHS).flat(), RESULT_PATH];
  const kinds = Object.hasOwn(KINDS_BY_MESSAGE_TYPE, type) ? KINDS_BY_MESSAGE_TYPE[type]! : [];
  const paths = new Set<string>(marker.fields.filter(isKnownRemovalPath));
  for (const kind of kinds) for (const path of pathsForKind(kind)) paths.add(path);
  return [...paths];
}

/** Spans removing every member `paths` name (all copies) plus any client-sent marker. */
function strippingSpans(root: JsonObjectNode, paths: readonly string[]): { spans: JsonSpan[]; rootRemoved: Set<number> } {
  const byObject = new Map<JsonObjectNode, Set<number>>();
  const add = (object: JsonObjectNode, index: number) => {
    const set = byObject.get(object) ?? new Set<number>();
    set.add(index);
    byObject.set(object, set);
  };
  for (const path of [...paths, MARKER_KEY]) {
    for (const ref of matchPath(root, path, { followDuplicates: true }).refs) add(ref.object, ref.index);
  }
  const spans = [...byObject].flatMap(([object, indices]) => memberDeletionSpans(object, indices));
  return { spans, rootRemoved: byObject.get(root) ?? new Set() };
}

/**
 * The metadata text to store when `incoming` replaces `stored` on a row of
 * `type`. Incoming must be a JSON object (the write path validates it first).
 */
export function guardReplacementMetadata({ type, stored, incoming }: { type: string; stored: string; incoming: string }): string {
  const marker = readRemovalMarker(stored);
  if (!marker) return incoming;
  const scan = scanJson(incoming);
  if (!scan.ok || scan.root.kind !== "object") {
    throw new AppError("invalid_request", "Message metadata must be a JSON object");
  }
  const root = scan.root;
  const { spans, rootRemoved } = strippingSpans(root, pathsToReapply(type, marker));
  const after = appendPosition(root, rootRemoved);
  const insertion =
    after === null ? { at: root.start + 1, text: `"${MARKER_KEY}":${marker.text}` } : { at: after, text: `,"${MARKER_KEY}":${marker.text}` };
  return applyEdits(incoming, spans, [insertion]);
}

/** Refuses a new row for a tool call whose existing row (any of `existing`) was compacted. */
export function assertToolCallNotReplayed({ toolCallId, existing }: { toolCallId: string | null; existing: readonly string[] }): void {
  if (toolCallId === null) return;
  if (existing.some(hasRemovalMarker)) {
    throw new AppError("tool_call_replay_refused", "This tool call's payload was removed by Messages compaction; it cannot be recorded again.");
  }
}

/**
 * The store verb the guard needs: metadata rows of the task's tool call that
 * may hold a marker (read inside the caller's writer transaction; a promise
 * from the asynchronous stores).
 */
export type ToolCallRows = {
  listToolCallMetadata(options: Parameters<CompactionStore["listToolCallMetadata"]>[0]): string[] | Promise<string[]>;
};

/**
 * The one call the message write path makes inside its writer transaction:
 * a replacement keeps a stored marker; a new row may not replay a compacted
 * tool call.
 */
export async function guardMetadataWrite(
  rows: ToolCallRows,
  write: { type: string; sessionId: string; previous: string | null; next: string; toolCallId: string | null },
): Promise<string> {
  if (write.previous !== null) return guardReplacementMetadata({ type: write.type, stored: write.previous, incoming: write.next });
  if (write.toolCallId !== null) {
    // Only rows whose text names the marker can have been compacted.
    const existing = await rows.listToolCallMetadata({ sessionId: write.sessionId, toolCallId: write.toolCallId, containing: `"${MARKER_KEY}"` });
    assertToolCallNotReplayed({ toolCallId: write.toolCallId, existing });
  }
  return write.next;
}
