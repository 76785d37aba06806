// The facts of a SQL-judged row that its skeleton still shows: json_remove
// keeps every member except the payload paths, so repeated keys, the marker,
// root provenance keys, the tool names and the member counts are read from
// the skeleton (about 230 characters on the benchmark base) in JavaScript.
// The same facts taken by json_each walks over the whole row, each with a
// count(distinct key), cost the page statement 6-7 us a row.
//
// json_remove removes a path's FIRST member only, so a payload key that was
// repeated is still in the skeleton: it counts as a repeated key here, as the
// walks counted it over the row.
//
// The skeleton is minified JSON that SQLite rendered, so a small reader that
// builds no tree will do: it lists the members (decoded keys and where each
// value starts) of the few objects it is asked about and skips every other
// value. It runs for every judged row of a pass; a tree per row would be
// garbage for V8's collector threads, which run at the server's priority.
// Anything it does not expect, and a key on these objects that SQLite's
// paths would read differently (an escaped NUL), makes the row the
// reducer's (null), never a guess.
import "server-only";
import { decodeString } from "@/server/json/nodes";
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

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

class Unexpected extends Error {}

/** Index just past the string token whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new Unexpected();
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The decoded text of the string token [start, end). */
function decode(text: string, start: number, end: number): string {
  let escaped = false;
  for (let i = start + 1; i < end - 1 && !escaped; i++) escaped = text.charCodeAt(i) === BACKSLASH;
  return decodeString(text, start, end, escaped);
}

/** Index just past the value that starts at `at`. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < text.length; ) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = stringEnd(text, i);
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth += 1;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
      i += 1;
    }
    throw new Unexpected();
  }
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY) break;
    i += 1;
  }
  if (i === at) throw new Unexpected();
  return i;
}

/** An object's members in order: decoded keys and where each value starts. */
type Members = { keys: string[]; values: number[]; end: number };

/** The members of the object at `at`; null when the value there is not an object. */
function membersAt(text: string, at: number): Members | null {
  if (text.charCodeAt(at) !== OPEN_OBJECT) return null;
  const keys: string[] = [];
  const values: number[] = [];
  let i = at + 1;
  if (text.charCodeAt(i) === CLOSE_OBJECT) return { keys, values, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) throw new Unexpected();
    const keyEnd = stringEnd(text, i);
    if (text.charCodeAt(keyEnd) !== COLON) throw new Unexpected();
    const key = decode(text, i, keyEnd);
    // SQLite's path steps stop comparing an escaped key at its first \u0000,
    // so "normalized\u0000" is `$.normalized` to SQL and another key to the
    // reducer: such a row is the reducer's.
    if (key.includes("\0")) throw new Unexpected();
    keys.push(key);
    values.push(keyEnd + 1);
    i = skipValue(text, keyEnd + 1);
    const next = text.charCodeAt(i);
    if (next === CLOSE_OBJECT) return { keys, values, end: i + 1 };
    if (next !== COMMA) throw new Unexpected();
    i += 1;
  }
}

/** The number of items of the array at `at`. */
function itemsAt(text: string, at: number): number {
  let i = at + 1;
  if (text.charCodeAt(i) === CLOSE_ARRAY) return 0;
  for (let items = 1; ; items++) {
    i = skipValue(text, i);
    const next = text.charCodeAt(i);
    if (next === CLOSE_ARRAY) return items;
    if (next !== COMMA) throw new Unexpected();
    i += 1;
  }
}

/** Where the value of the first member named `key` starts, as a JSON path step finds it; -1 where absent. */
function valueOf(object: Members | null, key: string): number {
  if (object === null) return -1;
  const index = object.keys.indexOf(key);
  return index < 0 ? -1 : object.values[index]!;
}

function childObject(text: string, object: Members | null, key: string): Members | null {
  const at = valueOf(object, key);
  return at < 0 ? null : membersAt(text, at);
}

/** Members whose key an earlier member of the same object already has. */
function repeatedKeys(object: Members | null): number {
  if (object === null) return 0;
  const { keys } = object;
  if (keys.length > 16) return keys.length - new Set(keys).size;
  let repeats = 0;
  for (let i = 1; i < keys.length; i++) if (keys.lastIndexOf(keys[i]!, i - 1) >= 0) repeats += 1;
  return repeats;
}

function addStrings(text: string, object: Members | null, keys: readonly string[], into: string[]): void {
  for (const key of keys) {
    const at = valueOf(object, key);
    if (at >= 0 && text.charCodeAt(at) === QUOTE) into.push(decode(text, at, stringEnd(text, at)));
  }
}

function readFacts(text: string, kind: string, shape: SkeletonShape): SkeletonFacts | null {
  const root = membersAt(text, 0);
  if (root === null || root.end !== text.length) return null;
  const normalized = childObject(text, root, "normalized");
  const body = childObject(text, normalized, kind);
  // The container: an object (members), an array (items) or anything else (none).
  let parent: Members | null = root;
  for (const step of shape.containerPath.slice(0, -1)) parent = childObject(text, parent, step);
  const at = valueOf(parent, shape.containerPath[shape.containerPath.length - 1]!);
  const container = at < 0 ? null : membersAt(text, at);
  const containerMembers = container !== null ? container.keys.length : at >= 0 && text.charCodeAt(at) === OPEN_ARRAY ? itemsAt(text, at) : 0;

  let repeats = repeatedKeys(root) + repeatedKeys(normalized) + repeatedKeys(body) + repeatedKeys(container);
  if (valueOf(root, RESULT_PATH) >= 0) repeats += 1;
  for (const key of shape.removedKeys) if (valueOf(container, key) >= 0) repeats += 1;

  const names: string[] = [];
  addStrings(text, root, ["tool_name", "toolName"], names);
  addStrings(text, body, ["name", "tool_name"], names);
  return {
    repeats,
    hasMarker: valueOf(root, MARKER_KEY) >= 0,
    rootProvenance: root.keys.some((key) => PROVENANCE_KEYS.has(key)),
    names,
    rootMembers: root.keys.length,
    containerMembers,
  };
}

/** The skeleton's facts for a row of `kind`; null when the skeleton is not the JSON object expected (the reducer judges the row). */
export function readSkeletonFacts(skeleton: string, kind: string, shape: SkeletonShape): SkeletonFacts | null {
  try {
    return readFacts(skeleton, kind, shape);
  } catch (error) {
    if (error instanceof Unexpected || error instanceof SyntaxError) return null;
    throw error;
  }
}
