// A validating JSON scanner that returns byte-exact spans instead of values.
//
// The reducer edits stored metadata by cutting spans out of the original
// text, so every number literal, unknown field, key order and escape stays
// exactly as stored, and nothing is re-serialized. Strings (the multi-MiB
// payloads) are skipped with native indexOf searches whose results are
// cached: the scan is linear even for strings with millions of escapes.
// Grammar is strict RFC 8259 (no comments, trailing commas or NaN), the same
// set SQLite's json_valid() accepts for text JSON.

export type JsonSpan = { start: number; end: number };
export type JsonObjectNode = JsonSpan & { kind: "object"; members: JsonMember[] };
export type JsonArrayNode = JsonSpan & { kind: "array"; items: JsonNode[] };
export type JsonStringNode = JsonSpan & { kind: "string"; escaped: boolean };
export type JsonScalarNode = JsonSpan & { kind: "number" | "true" | "false" | "null" };
export type JsonNode = JsonObjectNode | JsonArrayNode | JsonStringNode | JsonScalarNode;
export type JsonMember = { key: string; keyStart: number; value: JsonNode };

export type ScanResult = { ok: true; root: JsonNode; flaggedKeys: number[] } | { ok: false };

/** Same nesting limit as SQLite's JSON parser; deeper text is treated as malformed. */
export const MAX_DEPTH = 1000;

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4_RE = /[0-9a-fA-F]{4}/y;
const CONTROL_RE = /[\u0000-\u001f]/g;
const CHAR_U = 117;

/** " \\ / b f n r t */
function isSimpleEscape(code: number): boolean {
  return code === 34 || code === 92 || code === 47 || code === 98 || code === 102 || code === 110 || code === 114 || code === 116;
}

class Malformed extends Error {}

class Scanner {
  private pos = 0;
  private quoteAt: number;
  private backslashAt: number;
  private controlAt: number;
  readonly flaggedKeys: number[] = [];

  constructor(
    private readonly text: string,
    private readonly flagged: ReadonlySet<string>,
  ) {
    this.quoteAt = text.indexOf('"');
    this.backslashAt = text.indexOf("\\");
    this.controlAt = this.findControl(0);
  }

  parseDocument(): JsonNode {
    this.skipWhitespace();
    const root = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) throw new Malformed();
    return root;
  }

  private findControl(from: number): number {
    CONTROL_RE.lastIndex = from;
    const match = CONTROL_RE.exec(this.text);
    return match ? match.index : -1;
  }

  // Cached "next occurrence at or after `from`" lookups (quote and
  // backslash caches are refreshed inline in scanString). Queries only move
  // forward, so each cache is refreshed at most once per occurrence.
  private nextControl(from: number): number {
    if (this.controlAt !== -1 && this.controlAt < from) this.controlAt = this.findControl(from);
    return this.controlAt;
  }

  private skipWhitespace(): void {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.pos = i;
  }

  private parseValue(depth: number): JsonNode {
    if (depth > MAX_DEPTH) throw new Malformed();
    const start = this.pos;
    const c = this.text[start];
    if (c === "{") return this.parseObject(depth);
    if (c === "[") return this.parseArray(depth);
    if (c === '"') {
      const escaped = this.scanString();
      return { kind: "string", start, end: this.pos, escaped };
    }
    if (c === "t" || c === "f" || c === "n") {
      const word = c === "t" ? "true" : c === "f" ? "false" : "null";
      if (!this.text.startsWith(word, start)) throw new Malformed();
      this.pos = start + word.length;
      return { kind: word, start, end: this.pos };
    }
    NUMBER_RE.lastIndex = start;
    if (!NUMBER_RE.test(this.text)) throw new Malformed();
    this.pos = NUMBER_RE.lastIndex;
    return { kind: "number", start, end: this.pos };
  }

  /** Scans the string at pos (on its opening quote); returns whether it has escapes. */
  private scanString(): boolean {
    // Hot loop for multi-MiB payloads with millions of escapes: the cached
    // positions live in locals and escape letters are compared as char codes.
    const text = this.text;
    const open = this.pos;
    let i = open + 1;
    let escaped = false;
    let quote = this.quoteAt;
    let slash = this.backslashAt;
    for (;;) {
      if (quote !== -1 && quote < i) quote = text.indexOf('"', i);
      if (quote === -1) throw new Malformed();
      if (slash !== -1 && slash < i) slash = text.indexOf("\\", i);
      if (slash === -1 || slash > quote) break;
      escaped = true;
      const e = text.charCodeAt(slash + 1);
      if (e === CHAR_U) {
        HEX4_RE.lastIndex = slash + 2;
        if (!HEX4_RE.test(text)) throw new Malformed();
        i = slash + 6;
      } else if (isSimpleEscape(e)) {
        i = slash + 2;
      } else {
        throw new Malformed();
      }
    }
    this.quoteAt = quote;
    this.backslashAt = slash;
    const control = this.nextControl(open + 1);
    if (control !== -1 && control < quote) throw new Malformed();
    this.pos = quote + 1;
    return escaped;
  }

  private parseObject(depth: number): JsonObjectNode {
    const text = this.text;
    const start = this.pos;
    const members: JsonMember[] = [];
    this.pos++;
    this.skipWhitespace();
    if (text[this.pos] === "}") {
      this.pos++;
      return { kind: "object", start, end: this.pos, members };
    }
    for (;;) {
      if (text[this.pos] !== '"') throw new Malformed();
      const keyStart = this.pos;
      const escaped = this.scanString();
      const raw = text.slice(keyStart, this.pos);
      const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      if (this.flagged.has(key)) this.flaggedKeys.push(keyStart);
      this.skipWhitespace();
      if (text[this.pos] !== ":") throw new Malformed();
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(depth + 1);
      members.push({ key, keyStart, value });
      this.skipWhitespace();
      const sep = text[this.pos];
      this.pos++;
      if (sep === "}") return { kind: "object", start, end: this.pos, members };
      if (sep !== ",") throw new Malformed();
      this.skipWhitespace();
    }
  }

  private parseArray(depth: number): JsonArrayNode {
    const text = this.text;
    const start = this.pos;
    const items: JsonNode[] = [];
    this.pos++;
    this.skipWhitespace();
    if (text[this.pos] === "]") {
      this.pos++;
      return { kind: "array", start, end: this.pos, items };
    }
    for (;;) {
      items.push(this.parseValue(depth + 1));
      this.skipWhitespace();
      const sep = text[this.pos];
      this.pos++;
      if (sep === "]") return { kind: "array", start, end: this.pos, items };
      if (sep !== ",") throw new Malformed();
      this.skipWhitespace();
    }
  }
}

/**
 * Validates `text` and returns its span tree. Positions of object keys named
 * in `flagKeys` are collected on the way, so callers can test for a key at
 * any depth without walking the tree again.
 */
export function scanJson(text: string, flagKeys: ReadonlySet<string> = new Set()): ScanResult {
  const scanner = new Scanner(text, flagKeys);
  try {
    return { ok: true, root: scanner.parseDocument(), flaggedKeys: scanner.flaggedKeys };
  } catch (error) {
    if (error instanceof Malformed || error instanceof RangeError) return { ok: false };
    throw error;
  }
}

/** Decoded text of a string node (short strings only: kinds, tool names, part types). */
export function readString(text: string, node: JsonNode): string | null {
  if (node.kind !== "string") return null;
  const raw = text.slice(node.start, node.end);
  return node.escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}

/** The single member named `key`; `duplicate` when the object repeats it (ambiguous envelope). */
export function findMember(node: JsonObjectNode, key: string): JsonMember | "duplicate" | null {
  let found: JsonMember | null = null;
  for (const member of node.members) {
    if (member.key !== key) continue;
    if (found) return "duplicate";
    found = member;
  }
  return found;
}
