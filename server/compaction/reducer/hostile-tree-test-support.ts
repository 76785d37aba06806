// Test-only: the tree model behind the differential fuzz's rows. A row is
// built as a tree of raw byte tokens (keys and scalars exactly as stored,
// invalid UTF-8 and escapes included), rendered with the whitespace the
// generator chose, and each member's byte span is recorded while rendering.
// The expectation (hostile-expect-test-support.ts) is computed from this
// model alone: it never calls the scanner, the reducer or SQLite. Bytes are
// held as "byte strings" (one char per byte, latin1) so rendering is string
// concatenation.

/** A byte string: one char (U+0000-U+00FF) per stored byte. */
export type Bytes = string;
export const bytesOf = (text: string): Bytes => Buffer.from(text, "utf8").toString("latin1");
export const hexBytes = (hex: string): Bytes => Buffer.from(hex, "hex").toString("latin1");

export type Leaf = { t: "leaf"; raw: Bytes; isString: boolean };
export type ArrNode = { t: "arr"; items: TreeNode[] };
export type ObjNode = { t: "obj"; members: Member[] };
export type TreeNode = Leaf | ArrNode | ObjNode;
/** `name` is the key decoded as JSON from its bytes read one char per byte (so a raw non-ASCII byte never equals an ASCII name). */
export type Member = { key: Bytes; name: string; value: TreeNode };

export type Span = { start: number; end: number };
export type Rendered = { bytes: Bytes; members: Map<Member, { keyStart: number; valueEnd: number }>; depth: number };

/** A scalar token from its byte string. */
export const leaf = (raw: Bytes, isString = false): Leaf => ({ t: "leaf", raw, isString });
export const arr = (items: TreeNode[]): ArrNode => ({ t: "arr", items });
export const obj = (members: Member[]): ObjNode => ({ t: "obj", members });

const names = new Map<Bytes, string>();

/** A member from its key token's bytes (quotes included). */
export function member(token: Bytes, value: TreeNode): Member {
  let name = names.get(token);
  if (name === undefined) {
    name = JSON.parse(token) as string;
    if (names.size < 10_000) names.set(token, name);
  }
  return { key: token, name, value };
}

/** Members of `object` named `name` (decoded). */
export const named = (object: ObjNode, name: string) => object.members.filter((m) => m.name === name);

/** Renders `root`; `gap()` gives the whitespace for each place JSON allows it (empty for minified rows). */
export function render(root: TreeNode, gap: () => string): Rendered {
  let out = "";
  const members = new Map<Member, { keyStart: number; valueEnd: number }>();
  let depth = 0;
  const push = (bytes: Bytes) => {
    out += bytes;
  };
  const emit = (node: TreeNode, level: number) => {
    if (node.t === "leaf") return push(node.raw);
    depth = Math.max(depth, level + 1);
    if (node.t === "arr") {
      push("[");
      node.items.forEach((item, i) => {
        if (i > 0) push(",");
        push(gap());
        emit(item, level + 1);
        push(gap());
      });
      if (node.items.length === 0) push(gap());
      return push("]");
    }
    push("{");
    node.members.forEach((m, i) => {
      if (i > 0) push(",");
      push(gap());
      const keyStart = out.length;
      push(m.key);
      push(gap());
      push(":");
      push(gap());
      emit(m.value, level + 1);
      members.set(m, { keyStart, valueEnd: out.length });
      push(gap());
    });
    if (node.members.length === 0) push(gap());
    push("}");
  };
  push(gap());
  emit(root, 0);
  push(gap());
  return { bytes: out, members, depth };
}

/**
 * The byte spans the removal rules cut for the members `removed` of
 * `object`: a leading run of removed members up to the first kept key, any
 * later removed member from the end of the member before it, and all of
 * them (braces kept) when every member goes.
 */
export function cutSpans(object: ObjNode, removed: ReadonlySet<Member>, rendered: Rendered): Span[] {
  const list = object.members;
  const at = (m: Member) => rendered.members.get(m)!;
  const gone = list.map((m) => removed.has(m));
  if (!gone.includes(true)) return [];
  if (gone.every(Boolean)) return [{ start: at(list[0]!).keyStart, end: at(list[list.length - 1]!).valueEnd }];
  const spans: Span[] = [];
  let first = 0;
  while (gone[first]) first++;
  if (first > 0) spans.push({ start: at(list[0]!).keyStart, end: at(list[first]!).keyStart });
  for (let i = first + 1; i < list.length; i++) if (gone[i]) spans.push({ start: at(list[i - 1]!).valueEnd, end: at(list[i]!).valueEnd });
  return spans;
}

/** `bytes` without the spans, with `insert` placed at `at` (a position outside every span). */
export function cut(bytes: Bytes, spans: readonly Span[], at: number, insert: Bytes): Bytes {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const parts: Bytes[] = [];
  let cursor = 0;
  const copyTo = (end: number) => {
    if (at >= cursor && at <= end) {
      parts.push(bytes.slice(cursor, at), insert);
      cursor = at;
      at = -1;
    }
    parts.push(bytes.slice(cursor, end));
  };
  for (const span of sorted) {
    copyTo(span.start);
    cursor = span.end;
  }
  copyTo(bytes.length);
  return parts.join("");
}
