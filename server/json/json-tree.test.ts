import { describe, expect, it } from "vitest";
import { compactJsonText, toPlain } from "./json-compact";
import { formatPath, JsonSyntaxError, parseJsonTree } from "./json-tree";

describe("lossless JSON tree", () => {
  it("[TPR-RED-10] compacts without touching numbers, escapes or key order", () => {
    const text = `{ "z": 1, "10": 9007199254740993, "2": 1.10,\n "neg": -0, "tiny": 1e-7, "big": 1E+400,
      "s": "caf\\u00e9 \\ud83d\\ude00 汉字 😀 \\"q\\" \\/", "nested": { "unknown": [ {}, [], null, true, false ] } }`;
    expect(compactJsonText(text)).toBe(
      `{"z":1,"10":9007199254740993,"2":1.10,"neg":-0,"tiny":1e-7,"big":1E+400,` +
        `"s":"caf\\u00e9 \\ud83d\\ude00 汉字 😀 \\"q\\" \\/","nested":{"unknown":[{},[],null,true,false]}}`,
    );
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
