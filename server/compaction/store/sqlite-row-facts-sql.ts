// SQL-side facts of tool rows for SQLite: the JSON functions parse the row
// once per statement (SQLite caches the parse across the calls of one
// statement) and return only small values: the kind, provenance under
// normalized, result types, which payload paths exist with their rendered
// lengths (for modify_file: per item of `mutations`), and the skeleton
// (json_remove of the paths), from which skeleton-facts.ts reads the rest.
// json_remove keeps number literals, escapes, key order and unknown fields
// as stored; it drops insignificant whitespace, which the judge detects by
// byte arithmetic and hands to the JS reducer. SQLite's JSON functions pass
// bytes that are not UTF-8 through unchanged; the skeleton comes back as
// text, which the driver decodes with U+FFFD for every invalid sequence, so
// a skeleton showing U+FFFD goes to the reducer (which works on bytes) and
// any other skeleton is exactly its stored bytes: the judge's balance then
// uses SQLite's own byte lengths on both sides. Only a text value is judged:
// json_valid() also reads a BLOB holding JSON text, which must never be
// rewritten as text.
import "server-only";
import { KINDS_BY_MESSAGE_TYPE, REMOVAL_PATHS, type CompactableKind } from "../reducer/removal-rules";
import { MAX_METADATA_BYTES } from "../reducer/reducer";
import type { SkeletonShape } from "./skeleton-facts";

const PROVENANCE = `'background_work', 'monitor'`;
const jsonPath = (dotted: string) => `$.${dotted}`;
const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

const MODIFY_FILE = "modify_file";
const MUTATIONS = `normalized.${MODIFY_FILE}.mutations`;
/** modify_file's wildcard paths (`mutations.*.<field>`), in marker order, with the field each names. */
export const MUTATION_FIELDS = REMOVAL_PATHS.modify_file.map((path) => {
  if (!path.startsWith(`${MUTATIONS}.*.`) || path.split(".").length !== 5) throw new Error(`unexpected modify_file path ${path}`);
  return { path, field: path.slice(path.lastIndexOf(".") + 1) };
});

/**
 * One rule per (type, kind) whose paths SQL can remove. Fixed paths become
 * p1/p2; modify_file's wildcard paths (every item of `mutations`) have no
 * p1/p2 and their own columns (MUTATION_COLUMNS).
 */
export const SQL_RULES = Object.entries(KINDS_BY_MESSAGE_TYPE).flatMap(([type, kinds]) =>
  kinds
    .filter((kind) => kind === MODIFY_FILE || REMOVAL_PATHS[kind].every((path) => !path.includes("*")))
    .map((kind: CompactableKind) => {
      if (kind === MODIFY_FILE) return { type, kind, body: `normalized.${kind}`, container: MUTATIONS, p1: null, p2: null };
      const paths = REMOVAL_PATHS[kind];
      const container = paths[0]!.slice(0, paths[0]!.lastIndexOf("."));
      return { type, kind, body: `normalized.${kind}`, container, p1: paths[0]!, p2: paths[1] ?? null };
    }),
);

/** Per kind, where its payload sits in the skeleton (skeleton-facts.ts reads the members there). */
export const SKELETON_SHAPES: ReadonlyMap<string, SkeletonShape> = new Map(
  SQL_RULES.map((r) => [r.kind, { containerPath: r.container.split("."), removedKeys: [r.p1, r.p2].flatMap((path) => (path === null ? [] : [path.slice(path.lastIndexOf(".") + 1)])) }]),
);

const quoteOrNull = (text: string | null) => (text === null ? "null" : quote(text));
const RULES_VALUES = SQL_RULES.map((r) =>
  `(${[r.type, r.kind, jsonPath(r.body)].map(quote).join(", ")}, ${[r.p1 === null ? null : jsonPath(r.p1), r.p2 === null ? null : jsonPath(r.p2)].map(quoteOrNull).join(", ")}, ${quoteOrNull(r.p1)}, ${quoteOrNull(r.p2)})`,
).join(",\n    ");

// The provenance walk reads only `key` and stops at the first match: a
// provenance key anywhere under normalized, payloads included, keeps the row
// (a json_tree column read costs per node, so nothing else is read). The
// other members' facts (repeated keys, member counts, the marker, names, root
// provenance) come from the skeleton in JavaScript (skeleton-facts.ts).
const PROVENANCE_WALK = `exists (select 1 from json_tree(m, '$.normalized') where key in (${PROVENANCE}))`;

// modify_file: one small array per item of `mutations` (when it is an
// array), in array order: [json type, member count, repeated keys, then the
// rendered byte length of each payload field or null]; the skeleton replaces
// `mutations` by its items without those fields. Each item is looked up by
// its path from the row's JSONB (`$...mutations[i]`), which never renders
// its payload: reaching an item through json_each's `value` instead renders
// it whole (payload included) and parses it again, which cost every row 2-3x
// the lookups at 2 items of a few KiB (the workspace benchmark's rows) and
// scales with the payload. A lookup walks the i items before it, so the walk
// is quadratic in the item count (a 20 000-item row took 12.7 s in one
// statement): a row with more than SQL_MUTATION_ITEMS_MAX items is not
// walked at all. Its facts say "wide" and the JS reducer judges it (linear,
// about 1 us an item), which keeps every facts statement short.
// jsonb_extract copies an item's JSONB without rendering its payload;
// json() restores the JSON subtype a subquery's value loses, so the items go
// back as JSON, not text.
const MUTATIONS_PATH = quote(jsonPath(MUTATIONS));
/**
 * The most `mutations` items a facts statement walks; a row with more goes to
 * the JS reducer. At 128 items the lookups cost about what rendering each
 * item would (0.8 ms a row of empty items; a third of it with 5 KiB
 * payloads), and the quadratic part has not begun to dominate.
 */
export const SQL_MUTATION_ITEMS_MAX = 128;
const WIDE = `json_array_length(m, ${MUTATIONS_PATH}) > ${SQL_MUTATION_ITEMS_MAX}`;
const MUTATION_FIELD_PATHS = MUTATION_FIELDS.map(({ field }) => quote(`$.${field}`)).join(", ");
const fieldBytes = (field: string) => `octet_length(m -> (e.fullkey || ${quote(`.${field}`)}))`;
const MUTATION_WALK = `case when ${WIDE} then '"wide"' when json_type(m, ${MUTATIONS_PATH}) = 'array' then (select json_group_array(json_array(e.type,
      case when e.type = 'object' then (select json_array(count(*), count(*) - count(distinct key)) from json_each(m, e.fullkey)) end,
      ${MUTATION_FIELDS.map(({ field }) => fieldBytes(field)).join(", ")}) order by e.key)
    from json_each(m, ${MUTATIONS_PATH}) e) end`;
const MUTATIONS_SKELETON = `json_remove(case when json_type(m, ${MUTATIONS_PATH}) = 'array' then jsonb_replace(m, ${MUTATIONS_PATH}, json((select
      json_group_array(case when e.type = 'object' then json_remove(jsonb_extract(m, e.fullkey), ${MUTATION_FIELD_PATHS}) end order by e.key)
    from json_each(m, ${MUTATIONS_PATH}) e))) else m end, '$.result')`;

/**
 * The facts of one ruled row (`m` its JSONB, rule columns beside it), by
 * name; null where no rule matched. The statements pack them into one JSON
 * array per row in this order (FACT_NAMES), beside the skeleton: one parse
 * in JavaScript costs less than a value per column. The mutation walk's
 * array goes in through json(), which restores the JSON subtype a
 * subquery's value loses, so it nests as an array, not as quoted text.
 */
const FACTS = {
  kind: "rkind",
  name1: "name1",
  name2: "name2",
  nestedProvenance: `case when rkind is not null then ${PROVENANCE_WALK} end`,
  resultType: `json_type(m, '$.result')`,
  outputType: `json_type(m, body || '.output')`,
  // `->` is null where the path is absent.
  len1: `octet_length(m -> p1)`,
  len2: `octet_length(m -> p2)`,
  lenResult: `octet_length(m -> '$.result')`,
  mutations: `case when rkind = '${MODIFY_FILE}' then json(${MUTATION_WALK}) end`,
} as const;
export type FactName = keyof typeof FACTS;
export const FACT_NAMES = Object.keys(FACTS) as FactName[];
// json_remove returns NULL for a NULL path, so a kind with one payload path
// (p2 null) gets its own call.
const SKELETON = `case when rkind = '${MODIFY_FILE}' and ${WIDE} then null when rkind = '${MODIFY_FILE}' then ${MUTATIONS_SKELETON} when p2 is null then json_remove(m, p1, '$.result') else json_remove(m, p1, p2, '$.result') end`;
const FACT_COLUMNS = `json_array(${Object.values(FACTS).join(",\n    ")}) as facts,
  ${SKELETON} as skeleton`;
/** The packed facts and the skeleton, the last columns of both facts statements. */
export const FACT_COLUMN_NAMES = ["facts", "skeleton"] as const;

/** The header columns the page statement returns before the facts, in order. */
export const PAGE_HEADER_NAMES = ["rowid", "id", "type", "updatedAt", "bytes"] as const;

// json_extract finds kind only when the root and normalized are objects.
const RULED = `judged as (select src.*, json_extract(m, '$.normalized.kind') as kindText from src),
  ruled as (select judged.*, rules.* from judged left join rules on rules.rtype = judged.type and rules.rkind = judged.kindText)`;

const BLOB_WHEN_VALID = (column: string) =>
  `case when typeof(${column}) = 'text' and octet_length(${column}) <= ${MAX_METADATA_BYTES} and json_valid(${column}) then jsonb(${column}) end`;

/**
 * Rows up to this size are judged a page per statement: their JSONB is made
 * inside the statement and each reference to it re-reads a few KiB. Larger
 * rows are judged one by one from a bound JSONB value, which every function
 * call shares without a copy.
 */
export const PAGE_ROW_MAX_BYTES = 256 * 1024;

/**
 * Stored bytes judged by one page statement at most: the statement holds its
 * rows' JSONB together, so a planned page of several MiB is judged in a few
 * statements and the process's peak memory stays that of one small group.
 */
export const PAGE_STATEMENT_MAX_BYTES = 1024 * 1024;

// A page of rows by rowid (a JSON array), judged in one statement, in no
// particular order (the caller puts them in its own). CROSS JOIN keeps the
// rowid lookup first (the planner could otherwise walk the whole session
// through its index for every page).
export const PAGE_FACTS_SQL = `with
  rules(rtype, rkind, body, p1, p2, name1, name2) as (values
    ${RULES_VALUES}),
  page(rid) as (select value from json_each(?)),
  src as materialized (select msg.rowid as rid, msg.id as id, msg.type as type, msg.updated_at as updatedAt,
      coalesce(octet_length(msg.metadata), 0) as bytes, ${BLOB_WHEN_VALID("msg.metadata")} as m
    from page cross join messages msg on msg.rowid = page.rid where msg.session_id = ?),
  ${RULED}
select rid as rowid, id, type, updatedAt, bytes, ${FACT_COLUMNS}
from ruled`;

// Stage 1 for a large row: its header and, when it is strict JSON within the
// size limit, its JSONB (one parse of the text; the blob travels as a Buffer,
// never as a JS string).
export const ROW_BLOB_SQL = `select rowid, id, type, updated_at as updatedAt, coalesce(octet_length(metadata), 0) as bytes,
    ${BLOB_WHEN_VALID("metadata")} as blob
  from messages where rowid = ? and session_id = ?`;

// Stage 2: every fact from the bound JSONB. JSONB is navigated, not parsed,
// so the many small functions below cost little even on a 30 MB row (a
// function on the text would parse it again on every call).
export const ROW_FACTS_SQL = `with
  rules(rtype, rkind, body, p1, p2, name1, name2) as (values
    ${RULES_VALUES}),
  src(m, type) as (select ?, ?),
  ${RULED}
select ${FACT_COLUMNS}
from ruled`;
