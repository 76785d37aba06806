// The SQLite store's facts verbs: small rows a page per statement, large rows
// one by one from a bound JSONB (the statements: sqlite-row-facts-sql.ts),
// unpacked into SqlRowFacts for reducer/sql-removal.ts; and the versioned
// write of a reduced row.
import "server-only";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import { RESULT_PATH } from "../reducer/removal-rules";
import type { CompactionVerbs, MutationFacts, RowFacts, RowHeader, SqlRowFacts } from "../store";
import { collectBeforeHugeRow, type HugeRowOptions } from "./collect-garbage";
import { tuples } from "./sqlite-tuples";
import {
  FACT_COLUMN_NAMES,
  FACT_NAMES,
  MUTATION_FIELDS,
  PAGE_FACTS_SQL,
  PAGE_HEADER_NAMES,
  PAGE_ROW_MAX_BYTES,
  PAGE_STATEMENT_MAX_BYTES,
  ROW_BLOB_SQL,
  ROW_FACTS_SQL,
  SKELETON_SHAPES,
  type FactName,
} from "./sqlite-row-facts-sql";
import { readSkeletonFacts } from "./skeleton-facts";
import { refusalOf } from "./sqlite-refusal";

const REPLACEMENT = "\uFFFD";

export { PAGE_ROW_MAX_BYTES, PAGE_STATEMENT_MAX_BYTES } from "./sqlite-row-facts-sql";

/** Consecutive groups of rows up to `maxBytes` of stored text each (a larger row alone). */
function groupByBytes(rows: readonly RowHeader[], maxBytes: number): RowHeader[][] {
  const groups: RowHeader[][] = [];
  let current: RowHeader[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (current.length > 0 && bytes + row.bytes > maxBytes) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.bytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

type RowBlob = RowHeader & { updatedAt: string; blob: Buffer | null };

type RawMutation = [type: string, counts: [number, number] | null, ...fieldBytes: Array<number | null>];

/** The packed facts of one row, named (FACT_NAMES); `kind` and the rule's facts are null where no rule matched. */
type RawFacts = {
  kind: string | null;
  name1: string | null;
  name2: string | null;
  /** 1 when a provenance key is anywhere under normalized. */
  nestedProvenance: number;
  resultType: string | null;
  outputType: string | null;
  len1: number | null;
  len2: number | null;
  lenResult: number | null;
  /** modify_file: per item [type, [members, repeated keys] or null, bytes of each MUTATION_FIELDS field or null]; "wide" past SQL_MUTATION_ITEMS_MAX items (no skeleton then). */
  mutations: RawMutation[] | "wide" | null;
};

// RawFacts names exactly the statement's facts (FACT_NAMES): renaming one
// side without the other stops compiling.
type SameKeys<A, B> = [keyof A] extends [B] ? ([B] extends [keyof A] ? true : false) : false;
const rawFactsMatchStatement: SameKeys<RawFacts, FactName> = true;
void rawFactsMatchStatement;

/** Each fact's position in the packed array. */
const AT = Object.fromEntries(FACT_NAMES.map((name, i) => [name, i])) as Record<FactName, number>;

// One object of one shape per row (a name-keyed loop made every row's
// object a dictionary): this runs for every tool row of a pass.
function rawFacts(packed: string): RawFacts {
  const v = JSON.parse(packed) as unknown[];
  if (v.length !== FACT_NAMES.length) throw new Error(`facts statement returned ${v.length} facts, expected ${FACT_NAMES.length}`);
  const raw = {
    kind: v[AT.kind],
    name1: v[AT.name1],
    name2: v[AT.name2],
    nestedProvenance: v[AT.nestedProvenance],
    resultType: v[AT.resultType],
    outputType: v[AT.outputType],
    len1: v[AT.len1],
    len2: v[AT.len2],
    lenResult: v[AT.lenResult],
    mutations: v[AT.mutations],
  } satisfies Record<FactName, unknown>;
  return raw as RawFacts;
}

function toMutationFacts(mutations: RawMutation[]): Array<MutationFacts | null> {
  return mutations.map(([type, counts, ...fieldBytes]) => {
    if (type !== "object" || counts === null) return null;
    const present = MUTATION_FIELDS.flatMap(({ path }, i) => {
      const valueBytes = fieldBytes[i] ?? null;
      return valueBytes === null ? [] : [{ path, valueBytes }];
    });
    return { members: counts[0], repeats: counts[1], present };
  });
}

/**
 * The facts of one row, from the packed facts and the skeleton; null (the
 * reducer judges the row) where no rule matched or the skeleton may not be
 * its stored bytes. The driver decodes every sequence that is not UTF-8 as
 * U+FFFD, so a skeleton without one is exactly its bytes (its byte length is
 * SQLite's); one with U+FFFD (invalid bytes, or the character itself stored)
 * goes to the reducer, which reads the body again as bytes. Reading the
 * skeleton as a BLOB instead cost every row a Buffer and a UTF-8 check.
 */
function toFacts(packed: string, skeleton: string | null): SqlRowFacts | null {
  const raw = rawFacts(packed);
  if (raw.kind === null || skeleton === null || skeleton.includes(REPLACEMENT)) return null;
  const shape = SKELETON_SHAPES.get(raw.kind);
  if (shape === undefined) throw new Error(`facts statement returned kind ${raw.kind} without a rule`);
  const seen = readSkeletonFacts(skeleton, raw.kind, shape);
  if (seen === null) return null;
  const present: SqlRowFacts["present"] = [];
  if (raw.len1 !== null && raw.name1 !== null) present.push({ path: raw.name1, valueBytes: raw.len1 });
  if (raw.len2 !== null && raw.name2 !== null) present.push({ path: raw.name2, valueBytes: raw.len2 });
  const inContainer = present.length;
  if (raw.lenResult !== null) present.push({ path: RESULT_PATH, valueBytes: raw.lenResult });
  const facts: SqlRowFacts = {
    kind: raw.kind,
    duplicateKeys: seen.repeats,
    hasMarker: seen.hasMarker,
    provenance: seen.rootProvenance || raw.nestedProvenance === 1,
    names: seen.names,
    resultType: raw.resultType,
    outputType: raw.outputType,
    present,
    // The skeleton's members plus the payload members it no longer has.
    rootMembers: seen.rootMembers + (raw.lenResult === null ? 0 : 1),
    containerMembers: seen.containerMembers + inContainer,
    skeleton,
    // Without U+FFFD, the stored length of the skeleton (row.bytes is SQLite's of the stored text).
    skeletonBytes: Buffer.byteLength(skeleton, "utf8"),
  };
  if (raw.mutations === "wide") return null;
  if (raw.mutations !== null) facts.mutations = toMutationFacts(raw.mutations);
  return facts;
}

// typeof: a value another writer turned into a BLOB of the same length is not overwritten with text.
const VERSIONED_UPDATE = `update messages set metadata = ? where rowid = ? and updated_at = ? and octet_length(metadata) = ? and typeof(metadata) = 'text'`;
// A byte string (text that is not valid UTF-8, judged by the reducer) is written as exactly its bytes.
const VERSIONED_UPDATE_BYTES = `update messages set metadata = cast(? as text) where rowid = ? and updated_at = ? and octet_length(metadata) = ? and typeof(metadata) = 'text'`;

export function sqliteRowFactVerbs(sqlite: Sqlite, options: HugeRowOptions = {}): Pick<CompactionVerbs, "readToolRowFacts" | "replaceMetadataIfVersion"> {
  return {
    readToolRowFacts({ sessionId, rows }) {
      const byRowid = new Map<number, RowFacts>();
      const small = rows.filter((header) => header.bytes <= PAGE_ROW_MAX_BYTES);
      const pageFacts = tuples(statement(sqlite, PAGE_FACTS_SQL), [...PAGE_HEADER_NAMES, ...FACT_COLUMN_NAMES]);
      for (const group of groupByBytes(small, PAGE_STATEMENT_MAX_BYTES)) {
        const rowids = JSON.stringify(group.map((header) => header.rowid));
        for (const row of pageFacts.all(rowids, sessionId) as unknown[][]) {
          const [rowid, id, type, updatedAt, bytes, packed, skeleton] = row as [number, string, string, string, number, string, string | null];
          byRowid.set(rowid, { rowid, id, type, updatedAt, bytes, facts: toFacts(packed, skeleton) });
        }
      }
      const read = statement(sqlite, ROW_BLOB_SQL);
      const judge = tuples(statement(sqlite, ROW_FACTS_SQL), FACT_COLUMN_NAMES);
      for (const header of rows) {
        if (header.bytes <= PAGE_ROW_MAX_BYTES) continue;
        collectBeforeHugeRow(options, header.bytes);
        const row = read.get(header.rowid, sessionId) as RowBlob | undefined;
        if (!row) continue;
        const { blob, ...rest } = row;
        const packed = blob === null ? undefined : (judge.get(blob, row.type) as [string, string | null] | undefined);
        byRowid.set(rest.rowid, { ...rest, facts: packed ? toFacts(packed[0], packed[1]) : null });
      }
      // In the caller's order; a row deleted meanwhile is absent.
      return rows.flatMap((header) => byRowid.get(header.rowid) ?? []);
    },
    replaceMetadataIfVersion({ rowid, updatedAt, bytes, next, encoding }) {
      try {
        if (encoding === "bytes") return statement(sqlite, VERSIONED_UPDATE_BYTES).run(Buffer.from(next, "latin1"), rowid, updatedAt, bytes).changes === 1;
        return statement(sqlite, VERSIONED_UPDATE).run(next, rowid, updatedAt, bytes).changes === 1;
      } catch (error) {
        throw refusalOf(error, rowid);
      }
    },
  };
}
