// The SQL-side removal against the JS reducer (the reference) on a generated
// corpus: wherever SQL judges a row, the result is the reducer's, byte for
// byte (changed text, fields, removed_bytes, or the same skip reason).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reduceToolPayload } from "./reducer";
import { GENERATED_CORPUS_TIMEOUT_MS, openSqlJudge, type SqlJudge } from "./sql-judge-test-support";

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const AT = "2026-06-01T00:00:00.000Z";
const KIND_TYPES: [string, string][] = [
  ["shell_exec", "tool_execute"],
  ["read_file", "tool_read"],
  ["modify_file", "tool_edit"],
  ["code_search", "tool_search"],
  ["http_request", "tool_call"],
  ["generic", "tool_call"],
  ["create_task", "tool_call"],
];

/** A generator of stored texts: mostly minified, some pretty; raw number literals, escapes, traps. */
function corpus(seed: number) {
  const random = prng(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const text = (max: number) => {
    const alphabet = ["a", "b", " ", "\n", '"', "\\", "é", "€", "😀", "\t", "/", "{", "\u0001"];
    let out = "";
    const n = Math.floor(random() * max);
    for (let i = 0; i < n; i++) out += pick(alphabet);
    return JSON.stringify(out);
  };
  // Raw literals JSON.stringify would rewrite: they must survive as stored.
  const number = () => pick(["9007199254740993", "1e400", "-0.0", "1.50", "2E+3", "0", "12345678901234567890"]);
  const scalar = () => pick([() => "null", () => "true", number, () => text(20)])();
  const obj = (members: Array<[string, string] | null>) => `{${members.filter((m) => m !== null).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
  const maybe = (key: string, value: () => string): [string, string] | null => (chance(0.7) ? [key, value()] : null);
  const extras = () => Array.from({ length: Math.floor(random() * 3) }, (): [string, string] => [`x${Math.floor(random() * 1000)}`, scalar()]);
  const payload = () => (chance(0.1) ? scalar() : text(chance(0.5) ? 60 : 400));
  const result = () =>
    pick([
      payload,
      payload,
      payload,
      payload,
      () => `[${obj([["type", '"text"'], ["text", text(40)]])}]`,
      () => obj([["content", `[${obj([["type", '"image"'], ["data", '"x"']])}]`]]),
      () => obj([["structuredContent", obj([["a", "1"]])]]),
    ])();
  const body = (kind: string): string => {
    switch (kind) {
      case "shell_exec":
        return obj([["command", '"c"'], ...extras(), ["output", obj([["exit_code", number()], maybe("stdout", payload), maybe("stderr", payload), ...extras()])]]);
      case "read_file":
        return obj([["file_path", '"/f"'], ["output", obj([maybe("content", payload), ["line_count", "3"]])]]);
      case "modify_file":
        return obj([["mutations", `[${obj([["type", '"edit"'], maybe("diff", payload)])}]`]]);
      case "code_search":
        return obj([["query", '"q"'], ["output", obj([maybe("files", () => `[${text(20)},${text(20)}]`), ["file_count", "2"]])]]);
      case "http_request":
        return obj([["url", '"https://x"'], ...extras(), maybe("response", payload)]);
      default:
        return obj([["name", pick(['"fetch_docs"', '"TodoWrite"', '"mcp__x__create_task"', '"run"'])], maybe("input", () => obj([["q", payload()]])), maybe("output", payload)]);
    }
  };
  return () => {
    const [kind, type] = pick(KIND_TYPES);
    const members: Array<[string, string] | null> = [
      ["tool_call_id", text(8)],
      ...extras(),
      ["normalized", obj([["kind", JSON.stringify(kind)], [kind, body(kind)], chance(0.03) ? ["monitor", "true"] : null])],
      chance(0.6) ? ["result", result()] : null,
      chance(0.03) ? ["tool_name", '"update_task_plan"'] : null,
      chance(0.03) ? ["payload_retention", obj([["version", "1"]])] : null,
      chance(0.02) ? ["result", '"again"'] : null,
    ];
    if (chance(0.5)) members.reverse();
    let metadata = obj(members);
    if (chance(0.1)) metadata = metadata.replace(/,"/g, ', "');
    if (chance(0.02)) metadata = metadata.slice(0, -1);
    return { type: chance(0.03) ? pick(["tool_read", "tool_call", "message"]) : type, metadata };
  };
}

let sql: SqlJudge;
beforeAll(() => {
  sql = openSqlJudge();
});
afterAll(() => sql.close());

describe("SQL-side removal equals the JS reducer", () => {
  it("[TPR-RED-10][TPR-RED-14] on 10k generated rows: identical bytes, fields and removed_bytes wherever SQL judges", () => {
    const next = corpus(11);
    const outcomes = { sqlChanged: 0, sqlSkipped: 0, fallback: 0 };
    for (let n = 0; n < 10_000; n++) {
      const input = { ...next(), removedAt: AT };
      const viaSql = sql.judge(input);
      if (viaSql === null) {
        outcomes.fallback += 1;
        continue;
      }
      expect(viaSql, input.metadata.slice(0, 200)).toEqual(reduceToolPayload(input));
      outcomes[viaSql.outcome === "changed" ? "sqlChanged" : "sqlSkipped"] += 1;
    }
    // Most minified rows never reach the reducer; the traps do.
    expect(outcomes.sqlChanged).toBeGreaterThan(1_000);
    expect(outcomes.sqlSkipped).toBeGreaterThan(500);
    expect(outcomes.fallback).toBeGreaterThan(1_000);
  }, GENERATED_CORPUS_TIMEOUT_MS);
});

// Shapes the facts' walks must get right: provenance keys nested in arrays
// or spelled with escapes, repeated keys at each level (also through an
// escaped spelling), scalars and arrays where objects are expected, odd keys.
const BIG = "x".repeat(400);
const shell = (body: string) => `{"tool_name":"bash","normalized":{"kind":"shell_exec","shell_exec":${body}},"result":"r"}`;
// The route each shape must take: "sql" where the judge must answer (and
// match the reducer), "fallback" where only the reducer can tell.
const TRICKY: Array<[name: string, type: string, metadata: string, route: "sql" | "fallback"]> = [
  ["plain", "tool_execute", shell(`{"command":"c","output":{"exit_code":0,"stdout":"a${BIG}","stderr":"b"}}`), "sql"],
  ["escaped monitor in an array", "tool_execute", shell(`{"output":{"stdout":"a${BIG}"},"x":[{"monit\\u006fr":1}]}`), "fallback"],
  ["background_work deep in arrays", "tool_execute", shell(`{"output":{"stdout":"a${BIG}"},"x":[[[{"background_work":1}]]]}`), "fallback"],
  ["monitor as a value only", "tool_execute", shell(`{"output":{"stdout":"a${BIG}"},"x":["monitor"]}`), "sql"],
  ["monitor under result only", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"result":{"monitor":1}}`, "fallback"],
  ["escaped monitor at the root", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"m\\u006fnitor":1,"result":"r"}`, "fallback"],
  ["repeated body, once escaped", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}"}},"shell\\u005fexec":{"output":{"stdout":"b${BIG}"}}},"result":"r"}`, "fallback"],
  ["repeated container", "tool_execute", shell(`{"output":{"stdout":"a${BIG}"},"output":{"stdout":"b${BIG}"}}`), "fallback"],
  ["repeated payload, once escaped", "tool_execute", shell(`{"output":{"stdout":"a${BIG}","std\\u006fut":"b${BIG}","z":1}}`), "fallback"],
  ["escaped container key", "tool_execute", shell(`{"command":"c","out\\u0070ut":{"exit_code":0,"stdout":"a${BIG}"}}`), "sql"],
  ["escaped result key", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"r\\u0065sult":"r${BIG}"}`, "fallback"],
  ["scalar container", "tool_execute", shell(`{"command":"c","output":"s"}`), "sql"],
  ["array container", "tool_execute", shell(`{"command":"c","output":[1,{"stdout":"x"}]}`), "sql"],
  ["array body", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":[{"output":{"stdout":"x"}}]},"result":"r${BIG}"}`, "sql"],
  ["repeated kind", "tool_execute", `{"normalized":{"kind":"shell_exec","kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"result":"r"}`, "fallback"],
  ["integer-like and empty keys", "tool_execute", shell(`{"0":1,"":2,"output":{"0":"a","":"b","stdout":"a${BIG}"}}`), "sql"],
  ["repeated empty key", "tool_execute", shell(`{"output":{"":"a","":"b","stdout":"a${BIG}"}}`), "fallback"],
  ["generic with repeated input", "tool_call", `{"normalized":{"kind":"generic","generic":{"input":"i","input":"j","output":"o"}},"result":"r"}`, "fallback"],
  ["http_request with an escaped response key", "tool_call", `{"normalized":{"kind":"http_request","http_request":{"url":"u","resp\\u006fnse":"o${BIG}"}},"result":"r"}`, "fallback"],
  ["modify_file, monitor inside a mutation", "tool_edit", `{"normalized":{"kind":"modify_file","modify_file":{"mutations":[{"content":"c${BIG}","monitor":1}]}},"result":"r"}`, "fallback"],
  ["modify_file, mutations an object", "tool_edit", `{"normalized":{"kind":"modify_file","modify_file":{"mutations":{"content":"c${BIG}","x":1}}},"result":"r${BIG}"}`, "sql"],
  ["modify_file, repeated field once escaped", "tool_edit", `{"normalized":{"kind":"modify_file","modify_file":{"mutations":[{"content":"c${BIG}","c\\u006fntent":"d","x":1}]}},"result":"r"}`, "fallback"],
  ["code_search, provenance inside files", "tool_search", `{"normalized":{"kind":"code_search","code_search":{"output":{"files":[{"monitor":1}],"n":1}}},"result":"r"}`, "fallback"],
  ["repeated result", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"result":"r","result":"s${BIG}"}`, "fallback"],
  ["repeated payload", "tool_execute", shell(`{"output":{"stdout":"a${BIG}","stdout":"b","z":1}}`), "fallback"],
  ["repeated second payload", "tool_execute", shell(`{"output":{"stdout":"a${BIG}","stderr":"e","stderr":"f","z":1}}`), "fallback"],
  ["read_file, repeated content (one path)", "tool_read", `{"normalized":{"kind":"read_file","read_file":{"output":{"content":"a${BIG}","content":"b","z":1}}},"result":"r"}`, "fallback"],
  ["generic, monitor inside the removed input", "tool_call", `{"normalized":{"kind":"generic","generic":{"name":"fetch","input":{"q":[{"monitor":1}]},"output":"o${BIG}"}},"result":"r"}`, "fallback"],
  ["http_request, background_work inside the removed response", "tool_call", `{"normalized":{"kind":"http_request","http_request":{"url":"u","response":{"body":"o${BIG}","background_work":{}}}},"result":"r"}`, "fallback"],
  ["generic, control tool named in the body", "tool_call", `{"normalized":{"kind":"generic","generic":{"tool_name":"update_task_plan","input":"i${BIG}","output":"o"}},"result":"r"}`, "fallback"],
  ["names that are not strings", "tool_call", `{"tool_name":7,"toolName":{"n":"update_task_plan"},"normalized":{"kind":"generic","generic":{"name":["update_task_plan"],"input":"i${BIG}","output":"o"}},"result":"r"}`, "sql"],
  ["escaped marker key at the root", "tool_execute", `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"payload\\u005fretention":{},"result":"r"}`, "fallback"],
  ["control tool name spelled with an escape", "tool_execute", `{"tool_name":"update\\u005ftask_plan","normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"result":"r"}`, "fallback"],
  ["repeated tool_name, the second a control tool", "tool_execute", `{"tool_name":"bash","tool_name":"update_task_plan","normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}","z":1}}},"result":"r"}`, "fallback"],
  ["repeated keys below the container only", "tool_execute", shell(`{"output":{"stdout":"a${BIG}","meta":{"a":1,"a":2}}}`), "sql"],
  ["container of 20 distinct members", "tool_execute", shell(`{"output":{${Array.from({ length: 20 }, (_, i) => `"k${i}":${i}`).join(",")},"stdout":"a${BIG}"}}`), "sql"],
  ["container of 20 members, one repeated", "tool_execute", shell(`{"output":{${Array.from({ length: 20 }, (_, i) => `"k${i % 19}":${i}`).join(",")},"stdout":"a${BIG}"}}`), "fallback"],
  // SQLite's path steps stop comparing an escaped key at \u0000: these keys are the paths' keys to SQL only.
  ["root key normalized with an escaped NUL, kind repeated", "tool_execute", `{"normalized\\u0000":{"kind":"shell_exec","kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}"}}},"result":"r"}`, "fallback"],
  ["root key normalized with an escaped NUL", "tool_execute", `{"normalized\\u0000":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}"}}},"result":"r"}`, "fallback"],
  ["kind key with an escaped NUL", "tool_execute", `{"normalized":{"kind\\u0000":"shell_exec","shell_exec":{"output":{"stdout":"a${BIG}"}}},"result":"r"}`, "fallback"],
  ["container key with an escaped NUL", "tool_execute", shell(`{"output\\u0000":{"stdout":"a${BIG}"}}`), "fallback"],
  ["modify_file, mutations key with an escaped NUL", "tool_edit", `{"normalized":{"kind":"modify_file","modify_file":{"mutations\\u0000":[{"content":"c${BIG}"}]}},"result":"r"}`, "fallback"],
  ["http_request, response repeated (one path)", "tool_call", `{"normalized":{"kind":"http_request","http_request":{"url":"u","response":"a${BIG}","response":"b"}},"result":"r"}`, "fallback"],
  ["code_search, long files", "tool_search", `{"normalized":{"kind":"code_search","code_search":{"output":{"files":["a${BIG}","b${BIG}"],"n":1}}},"result":"r"}`, "sql"],
];

describe("SQL-side removal on tricky shapes", () => {
  it("[TPR-RED-12][TPR-RED-13] provenance anywhere, repeated keys at every level, escaped spellings: each shape judged by SQL as the reducer would, or left to it", () => {
    for (const [name, type, metadata, route] of TRICKY) {
      const input = { type, metadata, removedAt: AT };
      const viaSql = sql.judge(input);
      expect(viaSql === null ? "fallback" : "sql", name).toBe(route);
      if (viaSql !== null) expect(viaSql, name).toEqual(reduceToolPayload(input));
    }
  });
});

