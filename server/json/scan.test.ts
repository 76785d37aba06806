import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { compactJsonText, toPlain } from "./compact";
import { findMember, stringValue, type JsonNode } from "./nodes";
import { parseJsonTree, scanJson, STORED_JSON_MAX_LEVELS } from "./scan";
import { formatPath, JsonSyntaxError } from "./syntax-error";

// A tiny deterministic PRNG so the differential test is reproducible.
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function tokenSoups(seed: number, count: number): string[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(random() * 8);
    let text = "";
    for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)];
    return text;
  });
}

function repeatsKey(node: JsonNode): boolean {
  if (node.kind === "array") return node.items.some(repeatsKey);
  if (node.kind !== "object") return false;
  const keys = node.members.map((m) => m.key);
  return new Set(keys).size !== keys.length || node.members.some((m) => repeatsKey(m.value));
}

const PIECES = ['{', '}', '[', ']', ',', ':', '"a"', '"\\n"', '"\\u00e9"', '"\\x"', '"\\u12"', "1", "-0", "01", "1.5e3", "1.", "true", "nul", "null", " ", "\n", '"', "\\", "\u0001", "é", "😀"];

// `levels` nested containers (arrays and objects alternating from `first`), innermost holding `inner`.
function nested(levels: number, first: "[" | "{", inner: string): string {
  let text = inner;
  for (let i = levels - 1; i >= 0; i--) {
    const array = (i % 2 === 0) === (first === "[");
    text = array ? `[${text}]` : `{"a":${text}}`;
  }
  return text;
}

describe("one nesting limit for the scanner and SQLite", () => {
  it("accepts exactly what SQLite's json_valid accepts at 1000 and 1001 levels (arrays, objects, a scalar or nothing innermost)", () => {
    const sqlite = new Database(":memory:");
    const valid = sqlite.prepare("select json_valid(?) as ok");
    try {
      expect(STORED_JSON_MAX_LEVELS).toBe(1000);
      for (const levels of [999, 1000, 1001, 1002]) {
        for (const first of ["[", "{"] as const) {
          for (const inner of ["", "1", '"x"']) {
            // An empty object cannot hold "" as a member; its innermost member holds null instead.
            const text = nested(levels, first, inner === "" && (levels - 1) % 2 === (first === "[" ? 1 : 0) ? "null" : inner);
            const sqliteAccepts = (valid.get(text) as { ok: number }).ok === 1;
            const scanned = scanJson(text);
            expect(sqliteAccepts, `${levels} ${first} ${inner}`).toBe(levels <= 1000);
            expect(scanned.ok, `${levels} ${first} ${inner}`).toBe(sqliteAccepts);
          }
        }
      }
    } finally {
      sqlite.close();
    }
  });
});

describe("scanJson", () => {
  it("[TPR-RED-10] accepts exactly what JSON.parse accepts (differential over random token soups)", () => {
    let valid = 0;
    for (const text of tokenSoups(42, 20_000)) {
      let expected = true;
      try {
        JSON.parse(text);
      } catch {
        expected = false;
      }
      if (expected) valid++;
      expect(scanJson(text).ok, JSON.stringify(text)).toBe(expected);
    }
    expect(valid).toBeGreaterThan(100);
  });

  it("[TPR-RED-10] accepts real documents and reports byte-exact spans", () => {
    const docs = [
      { a: [1, 2, { b: "c\"d\\e\n" }], "k\u00e9y": null, n: -1.5e-7 },
      JSON.parse('{"emoji":"😀","esc":"\\ud83d\\ude00","t":true,"f":false}'),
      [],
      "",
    ];
    for (const doc of docs) {
      for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 3)]) {
        const result = scanJson(text);
        expect(result.ok).toBe(true);
        if (result.ok) expect(JSON.parse(text.slice(result.root.start, result.root.end))).toEqual(doc);
      }
    }
    const text = '{"k\\u00e9y" : "v\\"x" , "n":9007199254740993}';
    const result = scanJson(text);
    if (!result.ok || result.root.kind !== "object") throw new Error("expected an object");
    const member = findMember(result.root, "kéy");
    if (!member || member === "duplicate") throw new Error("expected the member");
    expect(stringValue(member.value)).toBe('v"x');
    const n = findMember(result.root, "n");
    if (!n || n === "duplicate") throw new Error("expected n");
    expect(text.slice(n.value.start, n.value.end)).toBe("9007199254740993");
  });

  it("stays linear on strings with many escapes and no later quote", () => {
    const text = `{"a":"${"\\n".repeat(200_000)}"}`;
    expect(scanJson(text).ok).toBe(true);
    expect(scanJson(`{"a":"${"\\n".repeat(200_000)}`).ok).toBe(false);
  });

  it("flags named keys at any depth, but never string contents", () => {
    const result = scanJson('{"x":{"y":[{"monitor":1}]},"s":"monitor"}', new Set(["monitor"]));
    expect(result.ok && result.flaggedKeys).toEqual([12]);
  });
});

describe("lossless JSON tree", () => {
  it("[TPR-RED-10] compacts without touching numbers, escapes or key order", () => {
    const text = `{ "z": 1, "10": 9007199254740993, "2": 1.10,\n "neg": -0, "tiny": 1e-7, "big": 1E+400,
      "s": "caf\\u00e9 \\ud83d\\ude00 汉字 😀 \\"q\\" \\/", "nested": { "unknown": [ {}, [], null, true, false ] } }`;
    expect(compactJsonText(text)).toBe(
      `{"z":1,"10":9007199254740993,"2":1.10,"neg":-0,"tiny":1e-7,"big":1E+400,` +
        `"s":"caf\\u00e9 \\ud83d\\ude00 汉字 😀 \\"q\\" \\/","nested":{"unknown":[{},[],null,true,false]}}`,
    );
  });

  it("accepts what scanJson accepts except repeated keys, and names the fault of the rest (same token soups)", () => {
    for (const text of tokenSoups(43, 20_000)) {
      const scanned = scanJson(text);
      let accepted = true;
      try {
        parseJsonTree(text);
      } catch (error) {
        expect(error, JSON.stringify(text)).toBeInstanceOf(JsonSyntaxError);
        accepted = false;
      }
      expect(accepted, JSON.stringify(text)).toBe(scanned.ok && !repeatsKey(scanned.root));
    }
  });

  it("decodes string values and keeps numbers lossless in the plain view", () => {
    const plain = toPlain(parseJsonTree(`{"s":"caf\\u00e9","n":9007199254740993,"__proto__":{"x":1}}`)) as Record<string, unknown>;
    expect(plain.s).toBe("café");
    expect(String(plain.n)).toBe("9007199254740993");
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.keys(plain)).toContain("__proto__");
  });

  it.each([
    ['{"a":01}', "invalid number"],
    ['{"a":1,}', "expected a quoted key"],
    ['{"a":1 "b":2}', 'expected "," or "}"'],
    ['{"a":"x\ny"}', "control character"],
    ['{"a":1,"a":2}', "duplicate key"],
    ['{"a":"\\x"}', "invalid escape"],
    ["[1] 2", "after the end"],
    ["", "expected a value"],
    ["{'a':1}", "expected a quoted key"],
    ["[NaN]", "expected a value"],
  ])("rejects %j (%s)", (text, detail) => {
    expect(() => parseJsonTree(text)).toThrow(detail);
  });

  it("reports line, column and the JSON path of a syntax error", () => {
    try {
      parseJsonTree('{\n  "tasks": [\n    {"id": "t1", "title": tru}\n  ]\n}');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JsonSyntaxError);
      const err = e as JsonSyntaxError;
      expect(err.line).toBe(3);
      expect(formatPath(err.path)).toBe("tasks[0].title");
    }
  });
});
