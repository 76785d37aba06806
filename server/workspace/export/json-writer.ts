// Pretty JSON writer that splices already-serialized JSON text verbatim.
// Export uses it so stored metadata appears byte-for-byte as stored, with no
// parse/stringify round trip that could touch numbers or key order.

/** JSON text to be written as-is (must already be valid JSON). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type Writable = string | number | boolean | null | RawJson | Writable[] | { [key: string]: Writable };

export function writeJson(value: Writable, indent = "  "): string {
  return writeJsonAt(value, "", indent);
}

/** writeJson for a value that stands nested at `pad` (its inner lines indented from there). */
export function writeJsonAt(value: Writable, pad: string, indent = "  "): string {
  const out: string[] = [];
  // Arrays and objects share one layout: an entry a line, `prefix` (an
  // object's key) before each value.
  const emitEntries = (open: string, close: string, entries: [prefix: string, value: Writable][], pad: string) => {
    if (entries.length === 0) {
      out.push(open, close);
      return;
    }
    const inner = pad + indent;
    out.push(open);
    entries.forEach(([prefix, item], i) => {
      out.push(i === 0 ? "\n" : ",\n", inner, prefix);
      emit(item, inner);
    });
    out.push("\n", pad, close);
  };
  const emit = (v: Writable, pad: string): void => {
    if (v instanceof RawJson) out.push(v.text);
    else if (Array.isArray(v)) emitEntries("[", "]", v.map((item) => ["", item]), pad);
    else if (v !== null && typeof v === "object") emitEntries("{", "}", Object.keys(v).map((key) => [`${JSON.stringify(key)}: `, v[key]!]), pad);
    else out.push(JSON.stringify(v));
  };
  emit(value, pad);
  return out.join("");
}
