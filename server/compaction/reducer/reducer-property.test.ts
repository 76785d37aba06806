// Property test: for many generated rows (random unknown fields, key order,
// whitespace, unicode, sizes), a changed result equals the input with exactly
// the listed fields deleted plus the marker, its byte count is exact, and a
// second pass is already_removed.
import { describe, expect, it } from "vitest";
import { reduceToolPayload } from "./reducer";

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const KIND_TYPES: [string, string][] = [
  ["shell_exec", "tool_execute"],
  ["read_file", "tool_read"],
  ["modify_file", "tool_edit"],
  ["code_search", "tool_search"],
  ["http_request", "tool_call"],
  ["generic", "tool_call"],
];

describe("reduceToolPayload properties", () => {
  it("[TPR-RED-10] [TPR-RED-14] [TPR-RED-16] changed output = input minus listed fields plus marker, exact bytes, idempotent", () => {
    const random = prng(7);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const text = (max: number) => {
      const alphabet = ["a", "b", " ", "\n", '"', "\\", "é", "€", "😀", "\t", "/", "{"];
      let out = "";
      const n = Math.floor(random() * max);
      for (let i = 0; i < n; i++) out += pick(alphabet);
      return out;
    };
    const scalar = (): Json => pick<() => Json>([() => null, () => true, () => Math.floor(random() * 1e6) / 100, () => text(20)])();
    const extras = (): Record<string, Json> => {
      const out: Record<string, Json> = {};
      const n = Math.floor(random() * 4);
      for (let i = 0; i < n; i++) out[`x${Math.floor(random() * 1000)}`] = scalar();
      return out;
    };
    const maybe = (key: string, value: () => Json): Record<string, Json> => (random() < 0.7 ? { [key]: value() } : {});
    const payload = () => text(random() < 0.5 ? 400 : 4000);
    const body = (kind: string): Record<string, Json> => {
      switch (kind) {
        case "shell_exec":
          return { command: "c", ...extras(), output: { exit_code: 0, ...maybe("stdout", payload), ...maybe("stderr", payload), ...extras() } };
        case "read_file":
          return { file_path: "/f", output: { ...maybe("content", payload), line_count: 3 } };
        case "modify_file":
          return {
            file_path: "/f",
            mutations: Array.from({ length: Math.floor(random() * 3) }, () => ({
              type: "edit",
              ...maybe("diff", payload),
              ...maybe("old_content", payload),
              ...maybe("new_content", payload),
              ...maybe("content", payload),
              start_line: 1,
            })),
          };
        case "code_search":
          return { query: "q", output: { ...maybe("files", () => Array.from({ length: 40 }, () => text(30))), file_count: 40 } };
        case "http_request":
          return { url: "https://x", method: "GET", ...maybe("response", payload) };
        default:
          return { name: "fetch_docs", ...maybe("input", () => ({ q: payload() })), ...maybe("output", payload) };
      }
    };
    const shuffle = (record: Record<string, Json>) => Object.fromEntries(Object.entries(record).sort(() => random() - 0.5));

    let changedCount = 0;
    for (let n = 0; n < 400; n++) {
      const [kind, type] = pick(KIND_TYPES);
      const meta = shuffle({
        tool_call_id: `c${n}`,
        title: text(10),
        ...extras(),
        normalized: { kind, [kind]: body(kind) },
        ...maybe("result", payload),
      });
      const input = JSON.stringify(meta, null, pick([undefined, 0, 1, "\t"]));
      const result = reduceToolPayload({ type, metadata: input, removedAt: "2026-06-01T00:00:00Z" });
      if (result.outcome === "skipped") {
        expect(["no_payload"]).toContain(result.reason);
        continue;
      }
      changedCount++;
      expect(Buffer.byteLength(input) - Buffer.byteLength(result.metadata)).toBe(result.removedBytes);
      const expected = JSON.parse(input) as Record<string, Json>;
      const normalized = (expected.normalized as Record<string, Record<string, Json>>)[kind]!;
      const removed: string[] = [];
      const drop = (holder: Json | undefined, key: string, path: string) => {
        if (holder && typeof holder === "object" && !Array.isArray(holder) && key in holder) {
          delete holder[key];
          if (!removed.includes(path)) removed.push(path);
        }
      };
      const prefix = `normalized.${kind}`;
      if (kind === "shell_exec") {
        drop(normalized.output, "stdout", `${prefix}.output.stdout`);
        drop(normalized.output, "stderr", `${prefix}.output.stderr`);
      } else if (kind === "read_file") drop(normalized.output, "content", `${prefix}.output.content`);
      else if (kind === "code_search") drop(normalized.output, "files", `${prefix}.output.files`);
      else if (kind === "http_request") drop(normalized, "response", `${prefix}.response`);
      else if (kind === "generic") {
        drop(normalized, "input", `${prefix}.input`);
        drop(normalized, "output", `${prefix}.output`);
      } else {
        for (const field of ["content", "old_content", "new_content", "diff"]) {
          for (const mutation of normalized.mutations as Json[]) drop(mutation, field, `${prefix}.mutations.*.${field}`);
        }
      }
      drop(expected, "result", "result");
      const order = ["stdout", "stderr", "input", "output", "content", "files", "response", "old_content", "new_content", "diff", "result"];
      const rank = (path: string) => order.indexOf(path.split(".").at(-1)!);
      const after = JSON.parse(result.metadata) as Record<string, Json>;
      expect(Object.keys(after).at(-1)).toBe("payload_retention");
      const { payload_retention: marker, ...rest } = after;
      expect(rest).toEqual(expected);
      expect(Object.keys(rest)).toEqual(Object.keys(expected));
      expect([...(marker as { removed_fields: string[] }).removed_fields].sort((a, b) => rank(a) - rank(b))).toEqual(
        [...removed].sort((a, b) => rank(a) - rank(b)),
      );
      expect(result.removedFields).toEqual((marker as { removed_fields: string[] }).removed_fields);
      expect(reduceToolPayload({ type, metadata: result.metadata, removedAt: "2026-06-02T00:00:00Z" })).toEqual({
        outcome: "skipped",
        reason: "already_removed",
      });
    }
    expect(changedCount).toBeGreaterThan(200);
  });
});
