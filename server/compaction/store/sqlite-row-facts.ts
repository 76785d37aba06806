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

export const ROW_FACTS_SQL = `with
  rules(rtype, rkind, body, container, p1, p2, name1, name2) as (values
    ${RULES_VALUES}),
  src as (select rowid as rid, id, type, updated_at, metadata as m, octet_length(metadata) as bytes
          from messages where rowid = ? and session_id = ?),
  judged as (select src.*, -- CASE, not AND: a JSON function must never see invalid text (it would throw).
                           case when bytes <= ${MAX_METADATA_BYTES} and json_valid(m)
                                then json_type(m) = 'object' and json_type(m, '$.normalized') = 'object' else 0 end as ok from src),
  ruled as (select judged.*, rules.* from judged
            left join rules on judged.ok and rules.rtype = judged.type and rules.rkind = case when judged.ok then json_extract(judged.m, '$.normalized.kind') end)
select rid as rowid, id, type, bytes, updated_at as updatedAt, rkind as kind, name1, name2,
  case when rkind is not null then
    ${dups("'$'")} + ${dups("'$.normalized'")} + ${dups("body")} + ${dups("container")}
  end as duplicateKeys,
  case when rkind is not null then json_type(m, '$.payload_retention') is not null end as hasMarker,
  case when rkind is not null then
    exists (select 1 from json_each(m) where key in (${PROVENANCE}))
    or exists (select 1 from json_tree(m, '$.normalized') where key in (${PROVENANCE}))
  end as provenance,
  case when rkind is not null then json_array(${textAt("'$.tool_name'")}, ${textAt("'$.toolName'")},
    ${textAt("body || '.name'")}, ${textAt("body || '.tool_name'")}) end as names,
  case when rkind is not null then json_type(m, '$.result') end as resultType,
  case when rkind is not null then json_type(m, body || '.output') end as outputType,
  case when rkind is not null and json_type(m, p1) is not null then octet_length(m -> p1) end as len1,
  case when rkind is not null and name2 is not null and json_type(m, p2) is not null then octet_length(m -> p2) end as len2,
  case when rkind is not null and json_type(m, '$.result') is not null then octet_length(m -> '$.result') end as lenResult,
  case when rkind is not null then (select count(*) from json_each(m)) end as rootMembers,
  case when rkind is not null then (select count(*) from json_each(m, container)) end as containerMembers,
  case when rkind is not null then json_remove(m, p1, p2, '$.result') end as skeleton
from ruled`;

type RawFacts = RowHeader & {
  updatedAt: string;
  kind: string | null;
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

function toFacts(raw: RawFacts): RowFacts {
  const header = { rowid: raw.rowid, id: raw.id, type: raw.type, bytes: raw.bytes, updatedAt: raw.updatedAt };
  if (raw.kind === null) return { ...header, facts: null };
  const present: SqlRowFacts["present"] = [];
  if (raw.len1 !== null) present.push({ path: raw.name1, valueBytes: raw.len1 });
  if (raw.len2 !== null && raw.name2 !== null) present.push({ path: raw.name2, valueBytes: raw.len2 });
  if (raw.lenResult !== null) present.push({ path: RESULT_PATH, valueBytes: raw.lenResult });
  const facts: SqlRowFacts = {
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
  return { ...header, facts };
}

const VERSIONED_UPDATE = `update messages set metadata = ? where rowid = ? and updated_at = ? and octet_length(metadata) = ?`;

export function sqliteRowFactVerbs(sqlite: Sqlite): Pick<CompactionStore, "readToolRowFacts" | "replaceMetadataIfVersion"> {
  return {
    readToolRowFacts({ sessionId, rows }) {
      const select = statement(sqlite, ROW_FACTS_SQL);
      const out: RowFacts[] = [];
      for (const header of rows) {
        const raw = select.get(header.rowid, sessionId) as RawFacts | undefined;
        if (raw) out.push(toFacts(raw));
      }
      return out;
    },
    replaceMetadataIfVersion({ rowid, updatedAt, bytes, next }) {
      return statement(sqlite, VERSIONED_UPDATE).run(next, rowid, updatedAt, bytes).changes === 1;
    },
  };
}
