// Message-metadata reads for engines without SQLite's json1 (PostgreSQL's
// jsonb would reorder keys and rewrite numbers, so metadata stays text and
// is read with the one span scanner in server/json). Each function answers
// what the SQLite statements answer: json(), json_type(), json_extract().
import { compactJson } from "@/server/json/compact";
import { member, type JsonNode } from "@/server/json/nodes";
import { scanJson } from "@/server/json/scan";

// The stored-data scanner: like SQLite's json_valid it allows duplicate keys
// (a lookup takes the first, as json_extract does) and nests 1000 deep.
function tryParse(text: string): JsonNode | null {
  const scanned = scanJson(text);
  return scanned.ok ? scanned.root : null;
}

function at(root: JsonNode, path: readonly string[]): JsonNode | undefined {
  let node: JsonNode | undefined = root;
  for (const key of path) node = node && member(node, key);
  return node;
}

/** SQLite's json_type() names. */
function typeName(node: JsonNode): string {
  switch (node.kind) {
    case "boolean":
      return node.value ? "true" : "false";
    case "number":
      return /^-?\d+$/.test(node.raw) ? "integer" : "real";
    case "string":
      return "text";
    default:
      return node.kind;
  }
}

/** The SQL value json_extract() yields: text for strings, numbers, 1/0 for booleans, minified text for containers. */
function sqlValue(source: string, node: JsonNode | undefined): unknown {
  if (!node) return null;
  switch (node.kind) {
    case "string":
      return node.value;
    case "number": {
      const value = Number(node.raw);
      // An integer literal is an SQL integer, which has no negative zero.
      return /^-?\d+$/.test(node.raw) && value === 0 ? 0 : value;
    }
    case "boolean":
      return node.value ? 1 : 0;
    case "null":
      return null;
    default:
      return compactJson(source, node);
  }
}

/** `json(text)` for a JSON object: whitespace removed, every token as written; null when not a JSON object. */
export function canonicalJsonObject(text: string): string | null {
  const root = tryParse(text);
  return root?.kind === "object" ? compactJson(text, root) : null;
}

/** `tool_call_id` when it is a JSON string, else null. */
export function toolCallIdOf(metadata: string): string | null {
  const root = tryParse(metadata);
  const node = root && at(root, ["tool_call_id"]);
  return node?.kind === "string" ? node.value : null;
}

export type ToolSummaryFields = { kind: unknown; title: unknown; command: unknown; exitCode: unknown; markerType: string | null; removedAt: unknown };

const NO_FIELDS: ToolSummaryFields = { kind: null, title: null, command: null, exitCode: null, markerType: null, removedAt: null };

/** The conversation view's summary fields of one stored metadata text (all null when it is not valid JSON). */
export function toolSummaryFields(metadata: string): ToolSummaryFields {
  const root = tryParse(metadata);
  if (!root) return NO_FIELDS;
  const marker = at(root, ["payload_retention"]);
  return {
    kind: sqlValue(metadata, at(root, ["normalized", "kind"])),
    title: sqlValue(metadata, at(root, ["title"])),
    command: sqlValue(metadata, at(root, ["normalized", "shell_exec", "command"])),
    exitCode: sqlValue(metadata, at(root, ["normalized", "shell_exec", "output", "exit_code"])),
    markerType: marker ? typeName(marker) : null,
    removedAt: sqlValue(metadata, marker && at(marker, ["removed_at"])),
  };
}
