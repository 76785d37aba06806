// The one JSON scanner: validates strict RFC 8259 text (no comments, trailing
// commas or NaN) and returns a span tree (nodes.ts) instead of values.
//
// Import, export, the request bodies and the compaction reducer all keep
// stored metadata byte-exact by cutting or copying the original text, so
// every number literal, unknown field, key order and escape survives and
// nothing is re-serialized (lossless-json keeps number literals too, but it
// builds JS objects, which move integer-like keys such as "2" first). Strings (the multi-MiB payloads) are skipped with
// native indexOf searches whose results are cached: the scan is linear even
// for strings with millions of escapes. Only when a string is rejected is it
// walked again, in order, to name its first fault.
//
// Two rule sets, one scanner:
// - scanJson: stored metadata as SQLite's json_valid() reads text JSON
//   (repeated keys kept for the caller to judge, no byte order mark, at most
//   STORED_JSON_MAX_LEVELS nested arrays and objects, as SQLite's
//   JSON_MAX_DEPTH); malformed text is a result, not an exception.
// - parseJsonTree: documents a person wrote or sent (fixtures, request
//   bodies): repeated keys rejected, a leading byte order mark tolerated, 256
//   levels; throws JsonSyntaxError with line, column and JSON path.
import { decodeString, JsonStringNode, type JsonArrayNode, type JsonMember, type JsonNode, type JsonObjectNode } from "./nodes";
import { JsonSyntaxError } from "./syntax-error";
import { continuesNumber, escapeLength, stringFault } from "./tokens";

export type ScanResult = { ok: true; root: JsonNode; flaggedKeys: number[] } | { ok: false };

/**
 * Nesting levels SQLite's JSON functions accept (its JSON_MAX_DEPTH): an
 * array or object inside 999 others is the deepest container; scalars add
 * no level. scan.test.ts checks both sides at 1000 and 1001.
 */
export const STORED_JSON_MAX_LEVELS = 1000;

/** maxLevels: how many arrays and objects may nest (the root container is level 1). */
type Rules = { maxLevels: number; rejectDuplicateKeys: boolean; allowByteOrderMark: boolean; flagKeys: ReadonlySet<string> };

const NO_KEYS: ReadonlySet<string> = new Set();
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const CONTROL_RE = /[\u0000-\u001f]/g;
const QUOTE = 34;
const COLON = 58;

// The JSON path is not tracked while scanning (the hot path pays nothing
// for it): each enclosing member or item prepends its key or index while a
// failure unwinds.
class Malformed extends Error {
  readonly path: (string | number)[] = [];

  constructor(
    readonly detail: string,
    readonly position: number,
  ) {
    super(detail);
  }

  /** Rethrows `error`, inside the value at `segment`, with that segment on its path. */
  static within(error: unknown, segment: string | number): never {
    if (error instanceof Malformed) error.path.unshift(segment);
    throw error;
  }
}

/** Repeated-key check: most objects are small, so a linear search beats a Set until ~16 keys. */
class KeySet {
  private seen: Set<string> | null = null;
  constructor(private readonly members: readonly JsonMember[]) {}

  /** False when `key` is already a member. */
  add(key: string): boolean {
    if (this.seen === null && this.members.length >= 16) this.seen = new Set(this.members.map((m) => m.key));
    if (this.seen ? this.seen.has(key) : this.members.some((m) => m.key === key)) return false;
    this.seen?.add(key);
    return true;
  }
}

class Scanner {
  private pos = 0;
  private quoteAt: number;
  private backslashAt: number;
  private controlAt: number;
  readonly flaggedKeys: number[] = [];

  constructor(
    private readonly text: string,
    private readonly rules: Rules,
  ) {
    this.quoteAt = text.indexOf('"');
    this.backslashAt = text.indexOf("\\");
    this.controlAt = this.findControl(0);
  }

  parseDocument(): JsonNode {
    if (this.rules.allowByteOrderMark && this.text.charCodeAt(0) === 0xfeff) this.pos = 1;
    const root = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail(`unexpected ${this.describe()} after the end of the document`);
    return root;
  }

  private fail(detail: string, at = this.pos): never {
    throw new Malformed(detail, at);
  }

  private describe(): string {
    return this.pos >= this.text.length ? "end of input" : `character ${JSON.stringify(this.text[this.pos])}`;
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

  /** `depth`: the containers around this value (0 at the root). */
  private parseValue(depth: number): JsonNode {
    this.skipWhitespace();
    const text = this.text;
    const start = this.pos;
    const c = text[start];
    if (c === "{" || c === "[") {
      if (depth >= this.rules.maxLevels) this.fail(`nesting deeper than ${this.rules.maxLevels} levels`);
      return c === "{" ? this.parseObject(depth) : this.parseArray(depth);
    }
    if (c === '"') {
      const escaped = this.scanString();
      return new JsonStringNode(text, start, this.pos, escaped);
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER_RE.lastIndex = start;
      if (!NUMBER_RE.test(text)) this.fail("invalid number");
      this.pos = NUMBER_RE.lastIndex;
      if (continuesNumber(text.charCodeAt(this.pos))) this.fail("invalid number");
      return { kind: "number", raw: text.slice(start, this.pos), start, end: this.pos };
    }
    if (c === "t" && text.startsWith("true", start)) return { kind: "boolean", value: true, start, end: (this.pos += 4) };
    if (c === "f" && text.startsWith("false", start)) return { kind: "boolean", value: false, start, end: (this.pos += 5) };
    if (c === "n" && text.startsWith("null", start)) return { kind: "null", start, end: (this.pos += 4) };
    return this.fail(`unexpected ${this.describe()}, expected a value`);
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
      if (quote === -1) return this.rejectString(open);
      if (slash !== -1 && slash < i) slash = text.indexOf("\\", i);
      if (slash === -1 || slash > quote) break;
      escaped = true;
      const length = escapeLength(text, slash);
      if (length === 0) return this.rejectString(open);
      i = slash + length;
    }
    this.quoteAt = quote;
    this.backslashAt = slash;
    const control = this.nextControl(open + 1);
    if (control !== -1 && control < quote) return this.rejectString(open);
    this.pos = quote + 1;
    return escaped;
  }

  private rejectString(open: number): never {
    const fault = stringFault(this.text, open);
    return this.fail(fault.detail, fault.at);
  }

  /** Consumes the opening character; true (closing character consumed too) when the container is empty. */
  private opensEmpty(close: string): boolean {
    this.pos++;
    this.skipWhitespace();
    if (this.text[this.pos] !== close) return false;
    this.pos++;
    return true;
  }

  /** After an element: true when the container closes here, false after a comma. */
  private closes(close: string): boolean {
    this.skipWhitespace();
    const sep = this.text[this.pos];
    if (sep !== close && sep !== ",") this.fail(`unexpected ${this.describe()}, expected "," or "${close}"`);
    this.pos++;
    return sep === close;
  }

  private parseObject(depth: number): JsonObjectNode {
    const start = this.pos;
    const members: JsonMember[] = [];
    const keys = this.rules.rejectDuplicateKeys ? new KeySet(members) : null;
    if (!this.opensEmpty("}")) {
      do members.push(this.parseMember(depth, keys));
      while (!this.closes("}"));
    }
    return { kind: "object", start, end: this.pos, members };
  }

  private parseMember(depth: number, keys: KeySet | null): JsonMember {
    const text = this.text;
    this.skipWhitespace();
    const keyStart = this.pos;
    if (text.charCodeAt(keyStart) !== QUOTE) this.fail(`unexpected ${this.describe()}, expected a quoted key`);
    const escaped = this.scanString();
    const keyEnd = this.pos;
    const key = decodeString(text, keyStart, keyEnd, escaped);
    if (keys && !keys.add(key)) this.fail(`duplicate key ${JSON.stringify(key)}`, keyStart);
    if (this.rules.flagKeys.has(key)) this.flaggedKeys.push(keyStart);
    this.skipWhitespace();
    if (text.charCodeAt(this.pos) !== COLON) this.fail(`unexpected ${this.describe()}, expected ":"`);
    this.pos++;
    try {
      return { key, keyStart, keyEnd, value: this.parseValue(depth + 1) };
    } catch (error) {
      return Malformed.within(error, key);
    }
  }

  private parseArray(depth: number): JsonArrayNode {
    const start = this.pos;
    const items: JsonNode[] = [];
    if (!this.opensEmpty("]")) {
      do {
        try {
          items.push(this.parseValue(depth + 1));
        } catch (error) {
          Malformed.within(error, items.length);
        }
      } while (!this.closes("]"));
    }
    return { kind: "array", start, end: this.pos, items };
  }
}

/**
 * Validates stored metadata and returns its span tree. Positions of object
 * keys named in `flagKeys` are collected on the way, so callers can test for
 * a key at any depth without walking the tree again.
 */
export function scanJson(text: string, flagKeys: ReadonlySet<string> = NO_KEYS): ScanResult {
  const scanner = new Scanner(text, { maxLevels: STORED_JSON_MAX_LEVELS, rejectDuplicateKeys: false, allowByteOrderMark: false, flagKeys });
  try {
    return { ok: true, root: scanner.parseDocument(), flaggedKeys: scanner.flaggedKeys };
  } catch (error) {
    if (error instanceof Malformed || error instanceof RangeError) return { ok: false };
    throw error;
  }
}

/** Parses a document a person wrote or sent into a span tree; throws JsonSyntaxError. */
export function parseJsonTree(text: string): JsonNode {
  const scanner = new Scanner(text, { maxLevels: 256, rejectDuplicateKeys: true, allowByteOrderMark: true, flagKeys: NO_KEYS });
  try {
    return scanner.parseDocument();
  } catch (error) {
    if (error instanceof Malformed) throw new JsonSyntaxError(error.detail, text, error.position, error.path);
    throw error;
  }
}
