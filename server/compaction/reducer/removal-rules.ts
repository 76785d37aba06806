// Which fields Messages compaction removes, per normalized kind, and which
// message type each kind must sit on. One table shared by the reducer, the
// replacement-write guard and the docs: a path listed in a marker's
// removed_fields always means the same field.
import { findMember, type JsonArrayNode, type JsonNode, type JsonObjectNode } from "../../json/nodes";

export type CompactableKind = "shell_exec" | "read_file" | "modify_file" | "code_search" | "http_request" | "generic";

/** Message type -> the normalized kinds allowed on it. */
export const KINDS_BY_MESSAGE_TYPE: Readonly<Record<string, readonly CompactableKind[]>> = {
  tool_execute: ["shell_exec"],
  tool_read: ["read_file"],
  tool_edit: ["modify_file"],
  tool_search: ["code_search"],
  tool_call: ["http_request", "generic"],
};

/** Kinds whose payload is a contract other features read (tasks, plans, todos, subagents). */
export const NEVER_COMPACTED_KINDS: readonly string[] = ["create_task", "subagent_task", "show_plan", "manage_todos", "misc"];

/** Provenance keys that exclude a payload anywhere they appear (first version: never compacted). */
export const PROVENANCE_KEYS: ReadonlySet<string> = new Set(["background_work", "monitor"]);

export const RESULT_PATH = "result";

export const REMOVAL_PATHS: Readonly<Record<CompactableKind, readonly string[]>> = {
  shell_exec: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"],
  generic: ["normalized.generic.input", "normalized.generic.output"],
  read_file: ["normalized.read_file.output.content"],
  modify_file: [
    "normalized.modify_file.mutations.*.content",
    "normalized.modify_file.mutations.*.old_content",
    "normalized.modify_file.mutations.*.new_content",
    "normalized.modify_file.mutations.*.diff",
  ],
  code_search: ["normalized.code_search.output.files"],
  http_request: ["normalized.http_request.response"],
};

const ALL_PATHS: ReadonlySet<string> = new Set([...Object.values(REMOVAL_PATHS).flat(), RESULT_PATH]);

/** Paths the reducer may remove for a kind, in marker order (kind fields, then result). */
export function pathsForKind(kind: CompactableKind): readonly string[] {
  return [...REMOVAL_PATHS[kind], RESULT_PATH];
}

export function isKnownRemovalPath(path: string): boolean {
  return ALL_PATHS.has(path);
}

export function isCompactableKind(kind: string): kind is CompactableKind {
  return Object.hasOwn(REMOVAL_PATHS, kind);
}

/** A member to delete: the object holding it and the member's index. */
export type MemberRef = { object: JsonObjectNode; index: number };
export type PathMatch = { refs: MemberRef[]; ambiguous: boolean };

/**
 * Finds the members a dotted path names ("*" = every array item). Steps
 * before the last must be unique members (a repeated key is ambiguous: we
 * cannot tell which copy a reader uses, so the caller keeps the row). The
 * last step matches every member with that key.
 */
export function matchPath(root: JsonNode, path: string, options: { followDuplicates?: boolean } = {}): PathMatch {
  const steps = path.split(".");
  const refs: MemberRef[] = [];
  let ambiguous = false;
  const walk = (node: JsonNode, depth: number): void => {
    const step = steps[depth]!;
    if (step === "*") {
      if (node.kind !== "array") return;
      for (const item of (node as JsonArrayNode).items) walk(item, depth + 1);
      return;
    }
    if (node.kind !== "object") return;
    if (depth === steps.length - 1) {
      node.members.forEach((member, index) => {
        if (member.key === step) refs.push({ object: node, index });
      });
      return;
    }
    if (options.followDuplicates) {
      // The write guard strips every copy: a repeated key must not smuggle a payload back.
      for (const member of node.members) if (member.key === step) walk(member.value, depth + 1);
      return;
    }
    const member = findMember(node, step);
    if (member === "duplicate") ambiguous = true;
    else if (member) walk(member.value, depth + 1);
  };
  walk(root, 0);
  return { refs, ambiguous };
}
