// Test-only: what the removal rules (REQUIREMENTS TPR-RED-*) say must happen
// to a generated row, decided from the generator's tree model and byte
// spans (hostile-tree-test-support.ts), never from the scanner, the reducer
// or SQLite: the independent side of the differential fuzz.
//
// Written from the rules, in the reducer's order: type, size, JSON, marker,
// a unique object `normalized` with a unique string `kind` allowed for the
// type, provenance keys (anywhere under normalized, or at the root), control
// tool names (read as UTF-8, an invalid sequence as U+FFFD, as the rule for
// invalid UTF-8 says), structured results, then the kind's paths (a repeated key on
// the way is ambiguous; the last step takes every copy), the marker's
// exact byte count. Bytes outside the cut spans are kept as stored.
import { CONTROL_TOOLS } from "./control-tools";
import { cut, cutSpans, named, render, type Bytes, type Member, type ObjNode, type TreeNode } from "./hostile-tree-test-support";

export type Expected = { outcome: "changed"; bytes: Buffer; fields: string[]; removedBytes: number } | { outcome: "skipped"; reason: string };

const KINDS: Record<string, string[]> = {
  tool_execute: ["shell_exec"],
  tool_read: ["read_file"],
  tool_edit: ["modify_file"],
  tool_search: ["code_search"],
  tool_call: ["http_request", "generic"],
};
const PATHS: Record<string, string[]> = {
  shell_exec: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"],
  generic: ["normalized.generic.input", "normalized.generic.output"],
  read_file: ["normalized.read_file.output.content"],
  modify_file: ["content", "old_content", "new_content", "diff"].map((field) => `normalized.modify_file.mutations.*.${field}`),
  code_search: ["normalized.code_search.output.files"],
  http_request: ["normalized.http_request.response"],
};
const PROVENANCE = new Set(["background_work", "monitor"]);
const MAX_ROW_BYTES = 32 * 1024 * 1024;
const MAX_LEVELS = 1000;

const canonical = (name: string) => {
  const q = name.lastIndexOf("__");
  return (q >= 0 ? name.slice(q + 2) : name).toLowerCase().replace(/[^a-z0-9]/g, "");
};
const CONTROL = new Set(CONTROL_TOOLS.map((tool) => canonical(tool.name)));

/** The decoded text of a string leaf, its bytes read as UTF-8 (an invalid sequence as U+FFFD); null for any other node. */
function decoded(node: TreeNode): string | null {
  if (node.t !== "leaf" || !node.isString) return null;
  return JSON.parse(Buffer.from(node.raw, "latin1").toString("utf8")) as string;
}

const only = (object: ObjNode, name: string): Member | "missing" | "repeated" => {
  const found = named(object, name);
  return found.length === 0 ? "missing" : found.length > 1 ? "repeated" : found[0]!;
};

function hasProvenance(node: TreeNode): boolean {
  if (node.t === "obj") return node.members.some((m) => PROVENANCE.has(m.name) || hasProvenance(m.value));
  if (node.t === "arr") return node.items.some(hasProvenance);
  return false;
}

// Plain results: scalars, MCP text parts, a CallToolResult of text parts (structured-result.ts's contract, restated).
const CONTRACT_META = /plan|task|todo|attach|resource|file|entity|subagent|uri/i;
function metaPlain(node: TreeNode): boolean {
  const contract = (n: TreeNode): boolean =>
    n.t === "obj" ? n.members.some((m) => CONTRACT_META.test(m.name) || contract(m.value)) : n.t === "arr" ? n.items.some(contract) : false;
  return node.t === "obj" && !contract(node);
}
function textPart(node: TreeNode): boolean {
  if (node.t !== "obj") return false;
  const allowed = new Set(["type", "text", "annotations", "_meta"]);
  if (!node.members.every((m) => allowed.has(m.name))) return false;
  const types = named(node, "type");
  const texts = named(node, "text");
  if (types.length !== 1 || texts.length !== 1) return false;
  if (decoded(types[0]!.value) !== "text" || !(texts[0]!.value.t === "leaf" && texts[0]!.value.isString)) return false;
  return node.members.every((m) => {
    if (m.name === "annotations") return m.value.t === "obj" && m.value.members.every((a) => ["audience", "priority", "lastModified"].includes(a.name));
    if (m.name === "_meta") return metaPlain(m.value);
    return true;
  });
}
export function plainResult(node: TreeNode): boolean {
  if (node.t === "leaf") return true;
  if (node.t === "arr") return node.items.every(textPart);
  const allowed = new Set(["content", "isError", "_meta"]);
  const names = node.members.map((m) => m.name);
  if (!names.every((n) => allowed.has(n)) || new Set(names).size !== names.length || !names.includes("content")) return false;
  return node.members.every((m) => {
    if (m.name === "content") return m.value.t === "arr" && m.value.items.every(textPart);
    if (m.name === "isError") return m.value.t === "leaf" && ["true", "false"].includes(m.value.raw);
    return metaPlain(m.value);
  });
}

/** Members a dotted path removes ("*": every array item), or "ambiguous" when a step before the last is repeated. */
function matchPath(root: ObjNode, path: string): Array<{ object: ObjNode; member: Member }> | "ambiguous" {
  const steps = path.split(".");
  const out: Array<{ object: ObjNode; member: Member }> = [];
  let ambiguous = false;
  const walk = (node: TreeNode, i: number) => {
    const step = steps[i]!;
    if (step === "*") return node.t === "arr" ? node.items.forEach((item) => walk(item, i + 1)) : undefined;
    if (node.t !== "obj") return;
    if (i === steps.length - 1) return named(node, step).forEach((m) => out.push({ object: node, member: m }));
    const next = only(node, step);
    if (next === "repeated") ambiguous = true;
    else if (next !== "missing") walk(next.value, i + 1);
  };
  walk(root, 0);
  return ambiguous ? "ambiguous" : out;
}

/** The marker text whose own length makes removed_bytes the exact byte difference, or null when none shrinks the row. */
export function markerFor(cutBytes: number, removedAt: string, fields: string[]): { text: Bytes; removedBytes: number } | null {
  const head = `,"payload_retention":{"version":1,"removed_at":${JSON.stringify(removedAt)},"removed_fields":${JSON.stringify(fields)},"removed_bytes":`;
  for (const pad of ["", " "]) {
    // n + length(head + pad + n + "}") = cutBytes, for the n whose digit count fits.
    for (let digits = 1; digits <= 16; digits++) {
      const n = cutBytes - head.length - pad.length - digits - 1;
      if (n >= 1 && String(n).length === digits) return { text: `${head}${pad}${n}}`, removedBytes: n };
    }
  }
  return null;
}

export type RowModel = {
  type: string;
  root: TreeNode;
  gap: () => string;
  /** Raw bytes before and after the document (whitespace, which JSON allows, or not). */
  leading?: Bytes;
  trailing?: Bytes;
  storage: "text" | "blob";
};

export function expectRow(model: RowModel, removedAt: string): { bytes: Buffer; expect: Expected } {
  const rendered = render(model.root, model.gap);
  const lead = model.leading ?? "";
  const text = lead + rendered.bytes + (model.trailing ?? "");
  const bytes = Buffer.from(text, "latin1");
  const skipped = (reason: string) => ({ bytes, expect: { outcome: "skipped" as const, reason } });
  if (model.storage === "blob") return skipped("not_text");
  const allowed = Object.hasOwn(KINDS, model.type) ? KINDS[model.type]! : null;
  if (!allowed) return skipped("unsupported");
  if (bytes.length > MAX_ROW_BYTES) return skipped("oversize");
  const junk = (extra: Bytes | undefined) => extra !== undefined && !/^[ \t\n\r]*$/.test(extra);
  if (junk(model.leading) || junk(model.trailing) || rendered.depth > MAX_LEVELS || model.root.t !== "obj") return skipped("malformed");
  const root = model.root;
  if (named(root, "payload_retention").length > 0) return skipped("already_removed");
  const normalized = only(root, "normalized");
  if (typeof normalized === "string" || normalized.value.t !== "obj") return skipped("unsupported");
  const kindMember = only(normalized.value, "kind");
  const kind = typeof kindMember === "string" ? null : decoded(kindMember.value);
  if (kind === null || !allowed.includes(kind)) return skipped("unsupported");
  if (hasProvenance(normalized.value) || root.members.some((m) => PROVENANCE.has(m.name))) return skipped("unsupported");
  const body = only(normalized.value, kind);
  const bodyObject = typeof body !== "string" && body.value.t === "obj" ? body.value : null;
  const names = [...named(root, "tool_name"), ...named(root, "toolName"), ...(bodyObject ? [...named(bodyObject, "name"), ...named(bodyObject, "tool_name")] : [])];
  if (names.some((m) => { const name = decoded(m.value); return name !== null && CONTROL.has(canonical(name)); })) return skipped("unsupported");
  const results = [...named(root, "result"), ...(kind === "generic" && bodyObject ? named(bodyObject, "output") : [])];
  if (results.some((m) => !plainResult(m.value))) return skipped("unsupported");

  const fields: string[] = [];
  const removed = new Map<ObjNode, Set<Member>>();
  for (const path of [...PATHS[kind]!, "result"]) {
    const matched = matchPath(root, path);
    if (matched === "ambiguous") return skipped("unsupported");
    if (matched.length === 0) continue;
    fields.push(path);
    for (const { object, member: m } of matched) {
      const set = removed.get(object) ?? new Set<Member>();
      set.add(m);
      removed.set(object, set);
    }
  }
  if (fields.length === 0) return skipped("no_payload");
  const spans = [...removed].flatMap(([object, members]) => cutSpans(object, members, rendered));
  const cutBytes = spans.reduce((n, s) => n + s.end - s.start, 0);
  const rootGone = removed.get(root) ?? new Set<Member>();
  const lastKept = [...root.members].reverse().find((m) => !rootGone.has(m));
  const marker = markerFor(cutBytes, removedAt, fields);
  if (!lastKept || !marker) return skipped("no_payload");
  const shifted = spans.map((s) => ({ start: s.start + lead.length, end: s.end + lead.length }));
  const out = cut(text, shifted, lead.length + rendered.members.get(lastKept)!.valueEnd, marker.text);
  return { bytes, expect: { outcome: "changed", bytes: Buffer.from(out, "latin1"), fields, removedBytes: marker.removedBytes } };
}
