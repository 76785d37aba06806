// Judges a row from the facts SQL's JSON functions returned (store verb
// `readToolRowFacts`) and builds the reduced text from the skeleton, so a
// payload never travels into JavaScript. The JS reducer stays the reference:
// this judge answers only when its result is provably the reducer's, byte
// for byte, and returns null otherwise (the caller then runs the reducer on
// the body). It answers only for rows that
// - are valid JSON objects with a (type, kind) rule SQL can remove
//   (modify_file: every item of an array `mutations` is an object without
//   repeated keys);
// - have no repeated key on the paths, no marker, no provenance key, no
//   control tool name and a scalar (plain) result and generic output;
// - are stored minified: the skeleton plus the removed members (value bytes,
//   key, quotes, colon, separating comma) adds up to the stored length, so
//   the reducer's in-place cut and SQLite's re-rendering agree. Every length
//   in that balance is SQLite's own (octet_length of the stored text, of each
//   rendered value, the skeleton's bytes): the sum falls short whenever
//   SQLite saw another document than the bytes hold (whitespace, bytes
//   after a NUL, where SQLite's parser stops) or cut another member than
//   the reducer would (a key that only matches SQLite's path step, such as
//   "stdout\u0000"). A row with nothing to remove is held to the same
//   balance before SQL may call it `no_payload`.
import "server-only";
import type { RowFacts, SqlRowFacts } from "../store";
import { findControlTool } from "./control-tools";
import { buildMarker, MAX_METADATA_BYTES, type ReduceResult } from "./reducer";
import { REMOVAL_PATHS, RESULT_PATH } from "./removal-rules";

const SCALAR_TYPES = new Set(["text", "integer", "real", "true", "false", "null"]);
const isPlain = (jsonType: string | null) => jsonType === null || SCALAR_TYPES.has(jsonType);

/** Bytes a minified object loses when `removed` of its `members` members go (each with one separating comma). */
function commaBytes(removed: number, members: number): number {
  if (removed === 0) return 0;
  return removed < members ? removed : removed - 1;
}

// The removal paths are a fixed handful: their keys' rendered sizes are computed once.
const keyBytesByPath = new Map<string, number>();

/** Bytes of a minified `"key":value` member named by the last step of `path`. */
function memberBytes(path: string, valueBytes: number): number {
  let keyBytes = keyBytesByPath.get(path);
  if (keyBytes === undefined) {
    keyBytes = Buffer.byteLength(JSON.stringify(path.slice(path.lastIndexOf(".") + 1)), "utf8");
    keyBytesByPath.set(path, keyBytes);
  }
  return keyBytes + 1 + valueBytes;
}

/**
 * modify_file's wildcard removals: the bytes cut from every mutation object
 * (each object loses its payload members and their commas, as the root does)
 * and the wildcard paths that matched, in marker order (each path once, as
 * the reducer lists a path that matched in any item). Null when an item is
 * not an object or repeats a key: the reducer handles those.
 */
function judgeMutations(mutations: SqlRowFacts["mutations"]): { cut: number; fields: string[] } | null {
  let cut = 0;
  const matched = new Set<string>();
  for (const mutation of mutations ?? []) {
    if (mutation === null || mutation.repeats > 0) return null;
    for (const { path, valueBytes } of mutation.present) {
      cut += memberBytes(path, valueBytes);
      matched.add(path);
    }
    cut += commaBytes(mutation.present.length, mutation.members);
  }
  return { cut, fields: REMOVAL_PATHS.modify_file.filter((path) => matched.has(path)) };
}

/** The reducer's result computed from SQL facts, or null when only the JS reducer can tell. */
export function judgeRowFacts(row: RowFacts, removedAt: string): ReduceResult | null {
  const facts = row.facts;
  if (facts === null || row.bytes > MAX_METADATA_BYTES) return null;
  if (facts.duplicateKeys > 0 || facts.hasMarker || facts.provenance) return null;
  if (facts.names.some((name) => findControlTool(name) !== null)) return null;
  if (!isPlain(facts.resultType)) return null;
  if (facts.kind === "generic" && !isPlain(facts.outputType)) return null;
  const wildcard = facts.kind === "modify_file" ? judgeMutations(facts.mutations) : { cut: 0, fields: [] };
  if (wildcard === null) return null;
  if (facts.present.length === 0 && wildcard.fields.length === 0) return facts.skeletonBytes === row.bytes ? { outcome: "skipped", reason: "no_payload" } : null;

  let cut = wildcard.cut;
  let inContainer = 0;
  let inRoot = 0;
  for (const { path, valueBytes } of facts.present) {
    cut += memberBytes(path, valueBytes);
    if (path === RESULT_PATH) inRoot += 1;
    else inContainer += 1;
  }
  cut += commaBytes(inContainer, facts.containerMembers) + commaBytes(inRoot, facts.rootMembers);
  // Whitespace anywhere makes the stored text longer than this sum: not minified.
  if (facts.skeletonBytes + cut !== row.bytes) return null;
  // The reducer's order: the kind's paths (pathsForKind), then result.
  const fields = [...wildcard.fields, ...facts.present.map((entry) => entry.path)];
  const marker = buildMarker(cut, removedAt, fields);
  if (marker === null) return { outcome: "skipped", reason: "no_payload" };
  return {
    outcome: "changed",
    metadata: `${facts.skeleton.slice(0, -1)}${marker.text}}`,
    removedFields: fields,
    removedBytes: marker.removedBytes,
  };
}
