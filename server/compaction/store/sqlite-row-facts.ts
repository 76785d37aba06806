// SQL-side facts of tool rows for SQLite: the JSON functions parse the row
// once per statement (SQLite caches the parse across the calls of one
// statement) and return only small values: the kind, repeated keys, the
// marker, provenance, tool names, result types, which payload paths exist
// with their rendered lengths, and the skeleton (json_remove of the paths).
// json_remove keeps number literals, escapes, key order and unknown fields
// as stored; it drops insignificant whitespace, which the judge detects by
// byte arithmetic and hands to the JS reducer.
import "server-only";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import { KINDS_BY_MESSAGE_TYPE, REMOVAL_PATHS, RESULT_PATH, type CompactableKind } from "../reducer/removal-rules";
import { MAX_METADATA_BYTES } from "../reducer/reducer";
import type { CompactionStore, RowFacts, RowHeader, SqlRowFacts } from "../store";

const PROVENANCE = `'background_work', 'monitor'`;
const jsonPath = (dotted: string) => `$.${dotted}`;
const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** One rule per (type, kind) whose paths SQL can remove (wildcard paths stay with the JS reducer). */
export const SQL_RULES = Object.entries(KINDS_BY_MESSAGE_TYPE).flatMap(([type, kinds]) =>
  kinds
    .filter((kind) => REMOVAL_PATHS[kind].every((path) => !path.includes("*")))
    .map((kind: CompactableKind) => {
      const paths = REMOVAL_PATHS[kind];
      const container = paths[0]!.slice(0, paths[0]!.lastIndexOf("."));
      return { type, kind, body: `normalized.${kind}`, container, p1: paths[0]!, p2: paths[1] ?? null };
    }),
);

const RULES_VALUES = SQL_RULES.map((r) =>
  `(${[r.type, r.kind, jsonPath(r.body), jsonPath(r.container), jsonPath(r.p1), jsonPath(r.p2 ?? r.p1)].map(quote).join(", ")}, ${quote(r.p1)}, ${r.p2 === null ? "null" : quote(r.p2)})`,
).join(",\n    ");

const dups = (path: string) => `coalesce((select count(*) - count(distinct key) from json_each(m, ${path})), 0)`;
// Parenthesized: ->> binds as tightly as ||, so `m ->> body || '.name'` would concatenate after extracting.
const textAt = (path: string) => `case when json_type(m, ${path}) = 'text' then m ->> (${path}) end`;

// Stage 1: the row's header and, when it is strict JSON within the size
// limit, its JSONB (one parse of the text; the blob travels as a Buffer, never
// as a JS string).
export const ROW_BLOB_SQL = `select rowid, id, type, updated_at as updatedAt, octet_length(metadata) as bytes,
    case when octet_length(metadata) <= ${MAX_METADATA_BYTES} and json_valid(metadata) then jsonb(metadata) end as blob
  from messages where rowid = ? and session_id = ?`;

// Stage 2: every fact from the bound JSONB. JSONB is navigated, not parsed,
// so the many small functions below cost little even on a 30 MB row (a
// function on the text would parse it again on every call).
export const ROW_FACTS_SQL = `with
  rules(rtype, rkind, body, container, p1, p2, name1, name2) as (values
    ${RULES_VALUES}),
  src(m, type) as (select ?, ?),
  judged as (select src.*, case when json_type(m) = 'object' and json_type(m, '$.normalized') = 'object'
                                then json_extract(m, '$.normalized.kind') end as kindText from src),
  ruled as (select judged.*, rules.* from judged join rules on rules.rtype = judged.type and rules.rkind = judged.kindText)
select rkind as kind, name1, name2,
  ${dups("'$'")} + ${dups("'$.normalized'")} + ${dups("body")} + ${dups("container")} as duplicateKeys,
  json_type(m, '$.payload_retention') is not null as hasMarker,
  exists (select 1 from json_each(m) where key in (${PROVENANCE}))
    or exists (select 1 from json_tree(m, '$.normalized') where key in (${PROVENANCE})) as provenance,
  json_array(${textAt("'$.tool_name'")}, ${textAt("'$.toolName'")}, ${textAt("body || '.name'")}, ${textAt("body || '.tool_name'")}) as names,
  json_type(m, '$.result') as resultType,
  json_type(m, body || '.output') as outputType,
  case when json_type(m, p1) is not null then octet_length(m -> p1) end as len1,
  case when name2 is not null and json_type(m, p2) is not null then octet_length(m -> p2) end as len2,
  case when json_type(m, '$.result') is not null then octet_length(m -> '$.result') end as lenResult,
  (select count(*) from json_each(m)) as rootMembers,
  (select count(*) from json_each(m, container)) as containerMembers,
  json_remove(m, p1, p2, '$.result') as skeleton
from ruled`;

type RowBlob = RowHeader & { updatedAt: string; blob: Buffer | null };

type RawFacts = {
  kind: string;
  name1: string;
  name2: string | null;
  duplicateKeys: number;
  hasMarker: number;
  provenance: number;
  names: string;
  resultType: string | null;
  outputType: string | null;
  len1: number | null;
  len2: number | null;
  lenResult: number | null;
  rootMembers: number;
  containerMembers: number;
  skeleton: string;
};

function toFacts(raw: RawFacts): SqlRowFacts {
  const present: SqlRowFacts["present"] = [];
  if (raw.len1 !== null) present.push({ path: raw.name1, valueBytes: raw.len1 });
  if (raw.len2 !== null && raw.name2 !== null) present.push({ path: raw.name2, valueBytes: raw.len2 });
  if (raw.lenResult !== null) present.push({ path: RESULT_PATH, valueBytes: raw.lenResult });
  return {
    kind: raw.kind,
    duplicateKeys: raw.duplicateKeys,
    hasMarker: raw.hasMarker === 1,
    provenance: raw.provenance === 1,
    names: (JSON.parse(raw.names) as Array<string | null>).filter((name): name is string => name !== null),
    resultType: raw.resultType,
    outputType: raw.outputType,
    present,
    rootMembers: raw.rootMembers,
    containerMembers: raw.containerMembers,
    skeleton: raw.skeleton,
    skeletonBytes: Buffer.byteLength(raw.skeleton, "utf8"),
  };
}

const VERSIONED_UPDATE = `update messages set metadata = ? where rowid = ? and updated_at = ? and octet_length(metadata) = ?`;

export function sqliteRowFactVerbs(sqlite: Sqlite): Pick<CompactionStore, "readToolRowFacts" | "replaceMetadataIfVersion"> {
  return {
    readToolRowFacts({ sessionId, rows }) {
      const read = statement(sqlite, ROW_BLOB_SQL);
      const judge = statement(sqlite, ROW_FACTS_SQL);
      const out: RowFacts[] = [];
      for (const header of rows) {
        const row = read.get(header.rowid, sessionId) as RowBlob | undefined;
        if (!row) continue;
        const { blob, ...rest } = row;
        const raw = blob === null ? undefined : (judge.get(blob, row.type) as RawFacts | undefined);
        out.push({ ...rest, facts: raw ? toFacts(raw) : null });
      }
      return out;
    },
    replaceMetadataIfVersion({ rowid, updatedAt, bytes, next }) {
      return statement(sqlite, VERSIONED_UPDATE).run(next, rowid, updatedAt, bytes).changes === 1;
    },
  };
}
