// Pretty JSON writer that splices already-serialized JSON text verbatim.
// Export uses it so stored metadata appears byte-for-byte as stored, with no
// parse/stringify round trip that could touch numbers or key order.

/** JSON text to be written as-is (must already be valid JSON). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type Writable = string | number | boolean | null | RawJson | Writable[] | { [key: string]: Writable };

export function writeJson(value: Writable, indent = "  "): string {
  const out: string[] = [];
  const emit = (v: Writable, pad: string) => {
    if (v instanceof RawJson) {
      out.push(v.text);
    } else if (Array.isArray(v)) {
      if (v.length === 0) {
        out.push("[]");
        return;
      }
      const inner = pad + indent;
      out.push("[");
      v.forEach((item, i) => {
        out.push(i === 0 ? "\n" : ",\n", inner);
        emit(item, inner);
      });
      out.push("\n", pad, "]");
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      if (keys.length === 0) {
        out.push("{}");
        return;
      }
      const inner = pad + indent;
      out.push("{");
      keys.forEach((key, i) => {
        out.push(i === 0 ? "\n" : ",\n", inner, JSON.stringify(key), ": ");
        emit(v[key]!, inner);
      });
      out.push("\n", pad, "}");
    } else {
      out.push(JSON.stringify(v));
    }
  };
  emit(value, "");
  return out.join("");
}
