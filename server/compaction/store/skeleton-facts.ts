// The facts of a SQL-judged row that its skeleton still shows: json_remove
// keeps every member except the payload paths, so repeated keys, the marker,
// root provenance keys, the tool names and the member counts are read from
// the skeleton (about 230 characters on the benchmark base) in JavaScript.
// The same facts taken by json_each walks over the whole row, each with a
// count(distinct key), cost the page statement 6-7 us a row; scanning the
// skeleton costs about 2.
//
// json_remove removes a path's FIRST member only, so a payload key that was
// repeated is still in the skeleton: it counts as a repeated key here, as the
// walks counted it over the row.
import "server-only";
import { findMember, stringValue, type JsonNode, type JsonObjectNode } from "@/server/json/nodes";
import { scanJson } from "@/server/json/scan";
import { MARKER_KEY } from "../reducer/reducer";
import { PROVENANCE_KEYS, RESULT_PATH } from "../reducer/removal-rules";

/** Where a kind's payload sits: the container's path from the root and the payload keys removed from it. */
export type SkeletonShape = { containerPath: readonly string[]; removedKeys: readonly string[] };

export type SkeletonFacts = {
  /** Repeated keys in the root, `normalized`, the kind's body and the container, plus payload keys still present. */
  repeats: number;
  hasMarker: boolean;
  rootProvenance: boolean;
  /** String values of tool_name / toolName (root) and name / tool_name (body), in that order. */
  names: string[];
  /** Members of the root and of the container as the skeleton has them (items when the container is an array). */
  rootMembers: number;
  containerMembers: number;
};

/** The first member's value, as a JSON path step finds it; null where absent or not an object. */
function child(node: JsonNode | null, key: string): JsonNode | null {
  if (node === null || node.kind !== "object") return null;
  for (const member of node.members) if (member.key === key) return member.value;
  return null;
}

/** Members whose key an earlier member of the same object already has. */
function repeatedKeys(node: JsonNode | null): number {
  if (node === null || node.kind !== "object") return 0;
  const { members } = node;
  if (members.length > 16) return members.length - new Set(members.map((member) => member.key)).size;
  let repeats = 0;
  for (let i = 1; i < members.length; i++) {
    const key = members[i]!.key;
    for (let j = 0; j < i; j++) {
      if (members[j]!.key === key) {
        repeats += 1;
        break;
      }
    }
  }
  return repeats;
}

function stringsOf(object: JsonNode | null, keys: readonly string[]): string[] {
  if (object === null || object.kind !== "object") return [];
  const names: string[] = [];
  for (const key of keys) {
    const value = child(object, key);
    const text = value === null ? null : stringValue(value);
    if (text !== null) names.push(text);
  }
  return names;
}

function memberCount(node: JsonNode | null): number {
  if (node === null) return 0;
  if (node.kind === "object") return node.members.length;
  return node.kind === "array" ? node.items.length : 0;
}

/** The skeleton's facts for a row of `kind`; null when the skeleton is not a JSON object (the reducer judges the row). */
export function readSkeletonFacts(skeleton: string, kind: string, shape: SkeletonShape): SkeletonFacts | null {
  const scan = scanJson(skeleton);
  if (!scan.ok || scan.root.kind !== "object") return null;
  const root: JsonObjectNode = scan.root;
  const normalized = child(root, "normalized");
  const body = child(normalized, kind);
  let container: JsonNode | null = root;
  for (const step of shape.containerPath) container = child(container, step);

  let repeats = repeatedKeys(root) + repeatedKeys(normalized) + repeatedKeys(body) + repeatedKeys(container);
  if (child(root, RESULT_PATH) !== null) repeats += 1;
  for (const key of shape.removedKeys) if (child(container, key) !== null) repeats += 1;

  let rootProvenance = false;
  for (const member of root.members) if (PROVENANCE_KEYS.has(member.key)) rootProvenance = true;
  return {
    repeats,
    hasMarker: findMember(root, MARKER_KEY) !== null,
    rootProvenance,
    names: [...stringsOf(root, ["tool_name", "toolName"]), ...stringsOf(body, ["name", "tool_name"])],
    rootMembers: root.members.length,
    containerMembers: memberCount(container),
  };
}
