// Test-only: the hostile rows a pass must survive (hostile-pass.test.ts on
// SQLite, pg-hostile.test.ts on PostgreSQL), each with what the removal
// rules say must become of it (hostile-expect-test-support.ts).
import { formatUtc } from "@/lib/time/rfc3339";
import { expectRow, type Expected } from "../reducer/hostile-expect-test-support";
import { arr, leaf, member, obj, type Bytes, type Member, type TreeNode } from "../reducer/hostile-tree-test-support";
import { NOW_MS } from "../test-support";

export type HostileWorkspaceRow = { type: string; bytes: Buffer; storage: "text" | "blob"; expect: Expected };

export const REMOVED_AT = formatUtc(NOW_MS);
export const FF = "\xff";
const SURROGATE = "\xed\xa0\x80";
const key = (name: string) => JSON.stringify(name);
export const str = (bytes: Bytes) => leaf(`"${bytes}"`, true);
export const m = (name: string, value: TreeNode): Member => member(key(name), value);
const long = (piece: string, n = 300) => str(piece.repeat(n));

/** A stored row from its tree: the bytes to write and what the removal rules say must become of them. */
export function hostile(type: string, root: TreeNode, options: { pretty?: boolean; trailing?: Bytes; storage?: "text" | "blob" } = {}): HostileWorkspaceRow {
  const storage = options.storage ?? "text";
  const { bytes, expect } = expectRow({ type, root, gap: () => (options.pretty ? "\n  " : ""), trailing: options.trailing, storage }, REMOVED_AT);
  return { type, bytes, storage, expect };
}

export const shell = (output: Member[], extra: Member[] = []) =>
  obj([m("tool_call_id", str("c")), m("title", str(`npm ${FF}test`)), m("normalized", obj([m("kind", str("shell_exec")), m("shell_exec", obj([m("command", str("make")), m("output", obj(output))]))])), ...extra]);

const deepChain = (levels: number): TreeNode => {
  let node: TreeNode = arr([]);
  for (let i = 1; i < levels; i++) node = arr([node]);
  return node;
};

/** The hostile rows of the workspace, by name. */
export function hostileWorkspaceRows(): Record<string, HostileWorkspaceRow> {
  const mutations = (items: TreeNode[]) =>
    obj([m("normalized", obj([m("kind", str("modify_file")), m("modify_file", obj([m("file_path", str("/f")), m("mutations", arr(items))]))])), m("result", long("r"))]);
  return {
    // Not UTF-8 inside the payload only: SQL removes it.
    stdoutInvalid: hostile("tool_execute", obj([m("normalized", obj([m("kind", str("shell_exec")), m("shell_exec", obj([m("output", obj([m("exit_code", leaf("0")), m("stdout", long(`x${FF}${SURROGATE}`))]))]))])), m("result", str("ok"))])),
    // Not UTF-8 outside the payload too, pretty-printed: the reducer works on the bytes.
    titleInvalidPretty: hostile("tool_execute", shell([m("exit_code", leaf("0")), m("stdout", long("line\\n"))]), { pretty: true }),
    // Keys SQLite's path steps would read as stdout and old_content, beside bytes that are not UTF-8.
    nulStdout: hostile("tool_execute", shell([m("stdout\u0000", long("kept")), m("stdout", long("gone")), m("note", str(`${FF}`))])),
    nulOldContent: hostile("tool_edit", mutations([obj([m("type", str("edit")), m("old_content\u0000", long(`kept${FF}`)), m("diff", long("d"))])])),
    // Bytes after the document: malformed, kept as stored.
    trailingNul: hostile("tool_execute", shell([m("stdout", long(`x${FF}`))]), { trailing: "\x00x" }),
    // A BLOB holding JSON text: never read, never rewritten as text.
    blob: hostile("tool_execute", shell([m("stdout", long("x"))]), { storage: "blob" }),
    // SQLite's nesting limit: 1000 levels compact, 1001 are malformed.
    deep1000: hostile("tool_execute", shell([m("stdout", long("x")), m("meta", deepChain(996))])),
    deep1001: hostile("tool_execute", shell([m("stdout", long("x")), m("meta", deepChain(997))])),
    // Not UTF-8 and nothing to remove: kept as stored.
    noPayload: hostile("tool_execute", shell([m("exit_code", leaf("0"))])),
    // 20 000 mutation items.
    wide: hostile("tool_edit", mutations(Array.from({ length: 20_000 }, (_, i) => (i % 10 === 0 ? obj([m("type", str("edit")), m("content", str("c"))]) : obj([]))))),
  };
}

