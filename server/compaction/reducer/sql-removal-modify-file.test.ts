// modify_file's wildcard paths judged in SQL against the JS reducer (the
// reference): every mutation object loses its payload members, the marker
// lists each wildcard path that matched once, and the rows SQL cannot prove
// identical (non-object items, repeated keys in an item, whitespace) go to
// the reducer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reduceToolPayload, type ReduceResult } from "./reducer";
import { SQL_MUTATION_ITEMS_MAX } from "../store/sqlite-row-facts-sql";
import { GENERATED_CORPUS_TIMEOUT_MS, openSqlJudge, type SqlJudge } from "./sql-judge-test-support";

const AT = "2026-06-01T00:00:00.000Z";
// Payloads large enough that the marker is smaller than what goes.
const P = JSON.stringify(`${"x".repeat(200)}é😀\n"`);
const PATHS = ["content", "old_content", "new_content", "diff"].map((field) => `normalized.modify_file.mutations.*.${field}`);

let sql: SqlJudge;
beforeAll(() => {
  sql = openSqlJudge();
});
afterAll(() => sql.close());

const edit = (mutations: string, tail = `,"result":${P}`) =>
  `{"tool_call_id":"c1","normalized":{"kind":"modify_file","modify_file":{"file_path":"/f","mutations":${mutations}}}${tail}}`;

/** Both sides on one stored text: SQL's answer (null: left to the reducer) and the reducer's. */
function both(metadata: string, type = "tool_edit"): { viaSql: ReduceResult | null; reference: ReduceResult } {
  const input = { type, metadata, removedAt: AT };
  return { viaSql: sql.judge(input), reference: reduceToolPayload(input) };
}

/** SQL judges the row itself and its answer is the reducer's, byte for byte. */
function expectJudged(metadata: string): ReduceResult {
  const { viaSql, reference } = both(metadata);
  expect(viaSql, "SQL left the row to the reducer").not.toBeNull();
  expect(viaSql).toEqual(reference);
  return reference;
}

function expectFallback(metadata: string): ReduceResult {
  const { viaSql, reference } = both(metadata);
  expect(viaSql).toBeNull();
  return reference;
}

describe("SQL-side removal of modify_file payloads", () => {
  it("[TPR-RED-04] several mutations, some without payload fields: every object cut as the reducer cuts it, paths listed once in rule order", () => {
    const result = expectJudged(
      edit(`[{"type":"edit","diff":"@@ -1 +1 @@\\n-a\\n+b","line":3},{"type":"create","content":"x\\u00e9😀\\"\\/"},{"type":"rename","to":"/g"},{"new_content":${P},"old_content":"o","type":"write","diff":"d"}]`),
    );
    expect(result).toMatchObject({ outcome: "changed", removedFields: [PATHS[0], PATHS[1], PATHS[2], PATHS[3], "result"] });
    if (result.outcome !== "changed") return;
    expect(JSON.parse(result.metadata).normalized.modify_file.mutations).toEqual([
      { type: "edit", line: 3 },
      { type: "create" },
      { type: "rename", to: "/g" },
      { type: "write" },
    ]);
  });

  it("a mutation made only of payload fields keeps its braces; no result: only the wildcard paths are listed", () => {
    const result = expectJudged(edit(`[{"diff":${P}},{"content":"c","diff":"d2"},{}]`, ""));
    expect(result).toMatchObject({ outcome: "changed", removedFields: [PATHS[0], PATHS[3]] });
    if (result.outcome === "changed") expect(result.metadata).toContain(`"mutations":[{},{},{}]`);
  });

  it("payloads of every JSON type and raw number literals elsewhere survive as stored", () => {
    expectJudged(edit(`[{"n":9007199254740993,"content":{"a":[1,2,{"b":${P}}]},"old_content":1e400,"new_content":null,"diff":["-a","+b"],"z":-0.0}]`));
  });

  it("an empty mutations array, items without payload and no result: no payload, judged in SQL", () => {
    expect(expectJudged(edit(`[]`, ""))).toEqual({ outcome: "skipped", reason: "no_payload" });
    expect(expectJudged(edit(`[{"type":"rename"}]`, ""))).toEqual({ outcome: "skipped", reason: "no_payload" });
    // Only the result goes when no mutation carries a payload.
    expect(expectJudged(edit(`[]`))).toMatchObject({ outcome: "changed", removedFields: ["result"] });
  });

  it("mutations that is not an array, or a body that is not an object: only the result can go, as in the reducer", () => {
    expect(expectJudged(edit(`{"content":${P}}`))).toMatchObject({ removedFields: ["result"] });
    expect(expectJudged(edit(`"text"`))).toMatchObject({ removedFields: ["result"] });
    expectJudged(`{"normalized":{"kind":"modify_file","modify_file":"flat"},"result":${P}}`);
    expectJudged(`{"normalized":{"kind":"modify_file"},"result":${P}}`);
    expect(expectJudged(edit(`{"content":"x"}`, ""))).toEqual({ outcome: "skipped", reason: "no_payload" });
  });

  it("a repeated key inside a mutation (payload or not) is left to the reducer", () => {
    expect(expectFallback(edit(`[{"diff":${P},"diff":"b"}]`))).toMatchObject({ outcome: "changed" });
    expectFallback(edit(`[{"diff":"a"},{"type":"x","type":"y","content":"c"}]`));
    expectFallback(edit(`[{"type":"x","type":"y"}]`, ""));
  });

  it("a non-object mutation (string, number, array, null) is left to the reducer", () => {
    for (const item of [`"str\\u00E9"`, `5`, `1e400`, `[{"diff":"d"}]`, `null`]) {
      expect(expectFallback(edit(`[{"diff":"d"},${item}]`))).toMatchObject({ outcome: "changed" });
    }
  });

  it("a repeated mutations or body key is left to the reducer, which keeps the row", () => {
    expect(expectFallback(`{"normalized":{"kind":"modify_file","modify_file":{"mutations":[{"diff":"a"}],"mutations":[]}},"result":"r"}`)).toEqual({
      outcome: "skipped",
      reason: "unsupported",
    });
  });

  it("pretty-printed text, whitespace inside a payload or an escaped payload key is left to the reducer", () => {
    const value = { normalized: { kind: "modify_file", modify_file: { mutations: [{ type: "edit", diff: "d" }, { content: "c".repeat(300) }] } }, result: "r" };
    expect(expectFallback(JSON.stringify(value, null, 2))).toMatchObject({ outcome: "changed" });
    expectFallback(edit(`[{"type":"edit", "diff":"d"}]`));
    expectFallback(edit(`[{"content":[1, 2]}]`));
    expect(expectFallback(edit(`[{"type":"edit","\\u0064iff":${P}}]`))).toMatchObject({ removedFields: [PATHS[3], "result"] });
  });

  it("provenance inside a mutation, a control tool name or a structured result keep the row, as in the reducer", () => {
    for (const metadata of [
      edit(`[{"diff":"d","monitor":{"id":1}}]`),
      edit(`[{"diff":"d"}]`, `,"tool_name":"update_task_plan"`),
      edit(`[{"diff":"d"}]`, `,"result":{"structuredContent":{"a":1}}`),
    ]) {
      const { viaSql, reference } = both(metadata);
      expect(reference).toMatchObject({ outcome: "skipped" });
      if (viaSql !== null) expect(viaSql).toEqual(reference);
    }
  });

  it("on 3k generated modify_file rows: identical bytes, fields and removed_bytes wherever SQL judges", () => {
    let state = 7;
    const random = () => ((state = (state * 1664525 + 1013904223) >>> 0), state / 2 ** 32);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const text = (max: number) => JSON.stringify(Array.from({ length: Math.floor(random() * max) }, () => pick(["a", " ", "\n", '"', "\\", "é", "😀", "\u0001", "/"])).join(""));
    const member = (key: string, value: string) => `${JSON.stringify(key)}:${value}`;
    const mutation = () => {
      if (random() < 0.02) return pick([`"s"`, `7`, `null`, `[]`]);
      const members = [member("type", pick([`"edit"`, `"create"`, `"delete"`]))];
      for (const field of ["content", "old_content", "new_content", "diff", "line"]) {
        if (random() < 0.4) members.push(member(field, field === "line" ? "12" : text(200)));
      }
      if (random() < 0.02) members.push(member("diff", `"again"`));
      if (random() < 0.5) members.reverse();
      return `{${members.join(",")}}`;
    };
    const outcomes = { changed: 0, skipped: 0, fallback: 0 };
    for (let n = 0; n < 3_000; n++) {
      const items = Array.from({ length: Math.floor(random() * 5) }, mutation);
      let metadata = edit(`[${items.join(",")}]`, random() < 0.5 ? `,"result":${text(50)}` : "");
      if (random() < 0.05) metadata = metadata.replace(/,"/g, ', "');
      const { viaSql, reference } = both(metadata);
      if (viaSql === null) {
        outcomes.fallback += 1;
        continue;
      }
      expect(viaSql, metadata.slice(0, 200)).toEqual(reference);
      outcomes[viaSql.outcome] += 1;
    }
    expect(outcomes.changed).toBeGreaterThan(1_500);
    expect(outcomes.skipped).toBeGreaterThan(50);
    expect(outcomes.fallback).toBeGreaterThan(100);
  }, GENERATED_CORPUS_TIMEOUT_MS);
});

describe("SQL-side removal of wide mutations", () => {
  const items = (count: number) => `[${Array.from({ length: count }, (_, i) => (i % 4 === 0 ? `{"type":"edit","diff":${P}}` : `{"type":"rename"}`)).join(",")}]`;

  it(`[TPR-RED-04] SQL walks up to ${SQL_MUTATION_ITEMS_MAX} items and leaves a wider row to the JS reducer (linear either way)`, () => {
    const atLimit = expectJudged(edit(items(SQL_MUTATION_ITEMS_MAX)));
    expect(atLimit).toMatchObject({ outcome: "changed", removedFields: [PATHS[3], "result"] });
    const wider = expectFallback(edit(items(SQL_MUTATION_ITEMS_MAX + 1)));
    expect(wider).toMatchObject({ outcome: "changed", removedFields: [PATHS[3], "result"] });
  });
});
