// Byte-exact edits on JSON text: delete object members (with the comma and
// whitespace that separated them) and insert text, leaving every other
// character of the document untouched.
import type { JsonObjectNode, JsonSpan } from "./nodes";

export type Insertion = { at: number; text: string };

/**
 * Spans that delete the members at `indices` of `object`. The spans
 * partition the removed text so that the kept members keep their original
 * separators: a leading run of removed members is cut up to the first kept
 * key; any later removed member is cut from the end of the member before it.
 */
export function memberDeletionSpans(object: JsonObjectNode, indices: ReadonlySet<number>): JsonSpan[] {
  const members = object.members;
  const spans: JsonSpan[] = [];
  let firstKept = 0;
  while (firstKept < members.length && indices.has(firstKept)) firstKept++;
  if (firstKept === members.length) {
    // Every member goes: keep the braces only.
    if (members.length > 0) spans.push({ start: members[0]!.keyStart, end: members[members.length - 1]!.value.end });
    return spans;
  }
  if (firstKept > 0) spans.push({ start: members[0]!.keyStart, end: members[firstKept]!.keyStart });
  for (let i = firstKept + 1; i < members.length; i++) {
    if (indices.has(i)) spans.push({ start: members[i - 1]!.value.end, end: members[i]!.value.end });
  }
  return spans;
}

/** Position right after the last member that survives the deletions (where an appended key goes). */
export function appendPosition(object: JsonObjectNode, removed: ReadonlySet<number>): number | null {
  for (let i = object.members.length - 1; i >= 0; i--) {
    if (!removed.has(i)) return object.members[i]!.value.end;
  }
  return null;
}

/**
 * Applies non-overlapping deletions and insertions in one pass. An insertion
 * at the start of a deletion is emitted before it.
 */
export function applyEdits(text: string, deletions: readonly JsonSpan[], insertions: readonly Insertion[] = []): string {
  const events = [
    ...insertions.map((ins) => ({ at: ins.at, order: 0, ins, del: null as JsonSpan | null })),
    ...deletions.map((del) => ({ at: del.start, order: 1, ins: null as Insertion | null, del })),
  ].sort((a, b) => a.at - b.at || a.order - b.order);
  const parts: string[] = [];
  let cursor = 0;
  for (const event of events) {
    if (event.at < cursor) throw new Error("overlapping JSON edits");
    parts.push(text.slice(cursor, event.at));
    cursor = event.at;
    if (event.ins) parts.push(event.ins.text);
    else if (event.del) cursor = event.del.end;
  }
  parts.push(text.slice(cursor));
  return parts.join("");
}

/** UTF-8 byte length of the text under the given spans. */
export function spanBytes(text: string, spans: readonly JsonSpan[]): number {
  let total = 0;
  for (const span of spans) total += Buffer.byteLength(text.slice(span.start, span.end), "utf8");
  return total;
}

/** UTF-8 byte length of the text outside the given (non-overlapping) spans. */
export function keptBytes(text: string, spans: readonly JsonSpan[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let total = 0;
  let cursor = 0;
  for (const span of sorted) {
    total += Buffer.byteLength(text.slice(cursor, span.start), "utf8");
    cursor = span.end;
  }
  return total + Buffer.byteLength(text.slice(cursor), "utf8");
}

/** Characters outside the given (non-overlapping) spans: the byte count of a byte string (one char per byte). */
export function keptLength(text: string, spans: readonly JsonSpan[]): number {
  let total = text.length;
  for (const span of spans) total -= span.end - span.start;
  return total;
}
