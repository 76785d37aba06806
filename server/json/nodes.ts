// The span tree the JSON scanner (scan.ts) returns. Every node records where
// it stands in the source text, so callers cut, copy or re-emit the original
// characters instead of re-serializing values: number literals, escapes, key
// order and unknown fields stay exactly as written.

export type JsonSpan = { start: number; end: number };
export type JsonMember = { key: string; keyStart: number; keyEnd: number; value: JsonNode };
export type JsonObjectNode = JsonSpan & { kind: "object"; members: JsonMember[] };
export type JsonArrayNode = JsonSpan & { kind: "array"; items: JsonNode[] };
export type JsonNumberNode = JsonSpan & { kind: "number"; raw: string };
export type JsonBooleanNode = JsonSpan & { kind: "boolean"; value: boolean };
export type JsonNullNode = JsonSpan & { kind: "null" };
export type JsonNode = JsonObjectNode | JsonArrayNode | JsonStringNode | JsonNumberNode | JsonBooleanNode | JsonNullNode;

/** Decoded text of the string token at [start, end) (quotes included). */
export function decodeString(text: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
}

/**
 * A string value. Decoding is lazy: validation, compaction, export and the
 * reducer only need the span, and decoding a multi-MiB escape-heavy payload
 * (logs are full of \n) would dominate the scan.
 */
export class JsonStringNode {
  readonly kind = "string" as const;
  private decoded: string | undefined;

  constructor(
    private readonly source: string,
    readonly start: number,
    readonly end: number,
    private readonly escaped: boolean,
  ) {}

  get value(): string {
    this.decoded ??= decodeString(this.source, this.start, this.end, this.escaped);
    return this.decoded;
  }
}

/** Decoded text of a string node, or null for any other node (short strings: kinds, tool names, part types). */
export function stringValue(node: JsonNode): string | null {
  return node.kind === "string" ? node.value : null;
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

/** The value of the first member named `key` of an object node, or undefined (for trees whose keys are unique). */
export function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.kind !== "object") return undefined;
  return node.members.find((m) => m.key === key)?.value;
}
