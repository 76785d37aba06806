// Compact, lossless re-serialization of a parsed JSON tree: only the
// whitespace between tokens goes away. Strings (with their escapes), number
// literals and key order are copied from the source text unchanged, so
// 9007199254740993, 1.10, -0 and "\u00e9" stay exactly as written.
import { LosslessNumber } from "lossless-json";
import type { JsonNode } from "./nodes";
import { parseJsonTree } from "./scan";

/** Re-emits `node` (parsed from `source`) without insignificant whitespace. */
export function compactJson(source: string, node: JsonNode): string {
  const out: string[] = [];
  const emit = (n: JsonNode) => {
    switch (n.kind) {
      case "object":
        out.push("{");
        n.members.forEach((e, i) => {
          if (i > 0) out.push(",");
          out.push(source.slice(e.keyStart, e.keyEnd), ":");
          emit(e.value);
        });
        out.push("}");
        return;
      case "array":
        out.push("[");
        n.items.forEach((item, i) => {
          if (i > 0) out.push(",");
          emit(item);
        });
        out.push("]");
        return;
      default:
        // Scalars: the exact source token (raw string escapes, raw number).
        out.push(source.slice(n.start, n.end));
    }
  };
  emit(node);
  return out.join("");
}

/** Parses and compacts JSON text in one step (throws JsonSyntaxError). */
export function compactJsonText(text: string): string {
  return compactJson(text, parseJsonTree(text));
}

/**
 * A plain JS value for schema checks. Numbers become LosslessNumber so no
 * precision is lost; "__proto__" keys become own properties, never prototypes.
 */
export function toPlain(node: JsonNode): unknown {
  switch (node.kind) {
    case "object": {
      const obj: Record<string, unknown> = {};
      for (const e of node.members) {
        Object.defineProperty(obj, e.key, { value: toPlain(e.value), enumerable: true, writable: true, configurable: true });
      }
      return obj;
    }
    case "array":
      return node.items.map(toPlain);
    case "string":
    case "boolean":
      return node.value;
    case "number":
      return new LosslessNumber(node.raw);
    case "null":
      return null;
  }
}
