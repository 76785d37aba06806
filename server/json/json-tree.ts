// A strict RFC 8259 parser that keeps every value's source span.
//
// Why not lossless-json alone: it keeps number literals exactly, but it
// builds plain JS objects, and JS moves integer-like keys ("2", "10") ahead
// of the others, so key order would not survive. Metadata must be stored as
// a byte-exact re-serialization of what was given, so we keep the raw text of
// every string and number and the order of every key, and let callers
// re-emit it compactly (json-compact.ts).

export type JsonPath = ReadonlyArray<string | number>;

type Span = { start: number; end: number };
export type JsonEntry = { key: string; keyStart: number; keyEnd: number; value: JsonNode };
export type JsonNode =
  | (Span & { kind: "object"; entries: JsonEntry[] })
  | (Span & { kind: "array"; items: JsonNode[] })
  | StringNode
  | (Span & { kind: "number"; raw: string })
  | (Span & { kind: "boolean"; value: boolean })
  | (Span & { kind: "null" });

/**
 * A string value. Decoding is lazy: validation, compaction and export only
 * need the raw span, and decoding escape-heavy text (logs are full of \n)
 * would dominate the parse.
 */
export class StringNode {
  readonly kind = "string" as const;
  private decoded: string | undefined;

  constructor(
    private readonly source: string,
    readonly start: number,
    readonly end: number,
    private readonly escaped: boolean,
  ) {}

  get value(): string {
    this.decoded ??= this.escaped ? decodeEscapes(this.source, this.start + 1, this.end - 1) : this.source.slice(this.start + 1, this.end - 1);
    return this.decoded;
  }
}

function decodeEscapes(text: string, from: number, to: number): string {
  const parts: string[] = [];
  let chunkStart = from;
  for (let i = from; i < to; i++) {
    if (text.charCodeAt(i) !== 92) continue;
    parts.push(text.slice(chunkStart, i));
    const e = text[i + 1]!;
    if (e === "u") {
      parts.push(String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)));
      i += 5;
    } else {
      parts.push(ESCAPES[e]!);
      i += 1;
    }
    chunkStart = i + 1;
  }
  parts.push(text.slice(chunkStart, to));
  return parts.join("");
}

export class JsonSyntaxError extends Error {
  readonly position: number;
  readonly line: number;
  readonly column: number;
  readonly path: JsonPath;

  constructor(detail: string, text: string, position: number, path: JsonPath) {
    const { line, column } = lineColumn(text, position);
    super(detail);
    this.name = "JsonSyntaxError";
    this.position = position;
    this.line = line;
    this.column = column;
    this.path = [...path];
  }
}

const MAX_DEPTH = 256;
// A run of characters that need no attention inside a string.
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export function lineColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

/** Formats a path the way error messages show it: tasks[3].sessions[0].id */
export function formatPath(path: JsonPath): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out || "(root)";
}

/** Parses JSON text into a span-keeping tree; throws JsonSyntaxError. */
export function parseJsonTree(text: string): JsonNode {
  let pos = 0;
  const path: (string | number)[] = [];

  const fail = (detail: string, at = pos): never => {
    throw new JsonSyntaxError(detail, text, at, path);
  };
  const describe = (at: number) => (at >= text.length ? "end of input" : `character ${JSON.stringify(text[at])}`);
  const skipSpace = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) pos++;
      else return;
    }
  };

  /** Validates a string token at pos; returns its span (decoding is lazy). */
  const scanString = (): StringNode => {
    const start = pos;
    pos++; // opening quote
    let escaped = false;
    for (;;) {
      STRING_RUN.lastIndex = pos;
      STRING_RUN.test(text);
      pos = STRING_RUN.lastIndex;
      if (pos >= text.length) fail("unterminated string", start);
      const c = text.charCodeAt(pos);
      if (c === 34) {
        pos++;
        return new StringNode(text, start, pos, escaped);
      }
      if (c < 0x20) fail("control character in string (must be escaped)");
      // Backslash.
      escaped = true;
      const e = text[pos + 1];
      if (e === "u") {
        if (!HEX4.test(text.slice(pos + 2, pos + 6))) fail("invalid \\u escape");
        pos += 6;
      } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
        pos += 2;
      } else {
        fail("invalid escape sequence");
      }
    }
  };

  const parseValue = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`);
    skipSpace();
    const start = pos;
    const c = text[pos];
    if (c === "{") return parseObject(depth, start);
    if (c === "[") return parseArray(depth, start);
    if (c === '"') return scanString();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER.lastIndex = pos;
      const m = NUMBER.exec(text);
      if (!m) fail("invalid number");
      pos += m![0].length;
      const next = text[pos];
      if (next !== undefined && /[0-9.eE+\-]/.test(next)) fail("invalid number");
      return { kind: "number", raw: m![0], start, end: pos };
    }
    for (const [word, node] of [
      ["true", { kind: "boolean", value: true }],
      ["false", { kind: "boolean", value: false }],
      ["null", { kind: "null" }],
    ] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return { ...node, start, end: pos } as JsonNode;
      }
    }
    return fail(`unexpected ${describe(pos)}, expected a value`);
  };

  const parseObject = (depth: number, start: number): JsonNode => {
    pos++;
    const entries: JsonEntry[] = [];
    // Most objects are small: a linear duplicate check beats a Set until ~16 keys.
    let seen: Set<string> | null = null;
    skipSpace();
    if (text[pos] === "}") {
      pos++;
      return { kind: "object", entries, start, end: pos };
    }
    for (;;) {
      skipSpace();
      if (text[pos] !== '"') fail(`unexpected ${describe(pos)}, expected a quoted key`);
      const key = scanString();
      const name = key.value;
      if (seen === null && entries.length >= 16) seen = new Set(entries.map((e) => e.key));
      if (seen ? seen.has(name) : entries.some((e) => e.key === name)) fail(`duplicate key ${JSON.stringify(name)}`, key.start);
      seen?.add(name);
      skipSpace();
      if (text[pos] !== ":") fail(`unexpected ${describe(pos)}, expected ":"`);
      pos++;
      path.push(name);
      const value = parseValue(depth + 1);
      path.pop();
      entries.push({ key: name, keyStart: key.start, keyEnd: key.end, value });
      skipSpace();
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      if (text[pos] === "}") {
        pos++;
        return { kind: "object", entries, start, end: pos };
      }
      fail(`unexpected ${describe(pos)}, expected "," or "}"`);
    }
  };

  const parseArray = (depth: number, start: number): JsonNode => {
    pos++;
    const items: JsonNode[] = [];
    skipSpace();
    if (text[pos] === "]") {
      pos++;
      return { kind: "array", items, start, end: pos };
    }
    for (;;) {
      path.push(items.length);
      items.push(parseValue(depth + 1));
      path.pop();
      skipSpace();
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      if (text[pos] === "]") {
        pos++;
        return { kind: "array", items, start, end: pos };
      }
      fail(`unexpected ${describe(pos)}, expected "," or "]"`);
    }
  };

  // A UTF-8 byte order mark is not JSON; editors add it, so tolerate it.
  if (text.charCodeAt(0) === 0xfeff) pos = 1;
  const root = parseValue(0);
  skipSpace();
  if (pos < text.length) fail(`unexpected ${describe(pos)} after the end of the document`);
  return root;
}

/** The member of an object node, or undefined. */
export function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.kind !== "object") return undefined;
  return node.entries.find((e) => e.key === key)?.value;
}
