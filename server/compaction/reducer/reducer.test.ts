import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_METADATA_BYTES, reduceToolPayload, type ReduceResult } from "./reducer";
import { openSqlJudge, type SqlJudge } from "./sql-judge-test-support";

const AT = "2026-06-01T00:00:00.000Z";
const BIG = "x".repeat(4000);

type Changed = Extract<ReduceResult, { outcome: "changed" }>;

// Every case below also runs the SQL-side removal on the same stored text:
// where SQL judges the row, its result must be the reducer's, byte for byte.
let sql: SqlJudge;
beforeAll(() => {
  sql = openSqlJudge();
});
afterAll(() => {
  // Not vacuous: SQL judged a good share of the cases itself.
  expect(sql.judged()).toBeGreaterThan(20);
  sql.close();
});

function reduce(type: string, metadata: unknown): ReduceResult {
  const text = typeof metadata === "string" ? metadata : JSON.stringify(metadata);
  const result = reduceToolPayload({ type, metadata: text, removedAt: AT });
  const viaSql = sql.judge({ type, metadata: text, removedAt: AT });
  if (viaSql !== null) expect(viaSql, "SQL-side removal differs from the JS reducer").toEqual(result);
  return result;
}

function changed(result: ReduceResult): Changed {
  if (result.outcome !== "changed") throw new Error(`expected changed, got ${JSON.stringify(result)}`);
  return result;
}

function parsed(result: ReduceResult): Record<string, unknown> {
  return JSON.parse(changed(result).metadata) as Record<string, unknown>;
}

function netBytes(input: string, result: ReduceResult): number {
  return Buffer.byteLength(input, "utf8") - Buffer.byteLength(changed(result).metadata, "utf8");
}

const shell = (output: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  tool_call_id: "c1",
  title: "npm test",
  status: "complete",
  normalized: {
    kind: "shell_exec",
    shell_exec: { command: "npm test", work_dir: "/repo", description: "run", timeout: 60, background: false, output },
  },
  ...extra,
});

describe("reduceToolPayload field matrix", () => {
  it("[TPR-RED-01] shell_exec: stdout and stderr removed; command, work_dir, exit code, truncation kept", () => {
    const result = reduce("tool_execute", shell({ exit_code: 2, stdout: BIG, stderr: "boom", truncated: true }));
    expect(changed(result).removedFields).toEqual(["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"]);
    expect((parsed(result).normalized as Record<string, unknown>).shell_exec).toEqual({
      command: "npm test",
      work_dir: "/repo",
      description: "run",
      timeout: 60,
      background: false,
      output: { exit_code: 2, truncated: true },
    });
  });

  it("[TPR-RED-02] generic: input and output removed; tool name kept", () => {
    const meta = { tool_call_id: "c2", normalized: { kind: "generic", generic: { name: "fetch_docs", input: { q: BIG }, output: BIG } } };
    const result = reduce("tool_call", meta);
    expect(changed(result).removedFields).toEqual(["normalized.generic.input", "normalized.generic.output"]);
    expect(parsed(result).normalized).toEqual({ kind: "generic", generic: { name: "fetch_docs" } });
  });

  it("[TPR-RED-03] read_file: output.content removed; path, range, line count kept", () => {
    const meta = {
      normalized: {
        kind: "read_file",
        read_file: { file_path: "/a.ts", offset: 10, limit: 50, output: { content: BIG, line_count: 50, truncated: false, language: "ts" } },
      },
    };
    const result = reduce("tool_read", meta);
    expect(changed(result).removedFields).toEqual(["normalized.read_file.output.content"]);
    expect(parsed(result).normalized).toEqual({
      kind: "read_file",
      read_file: { file_path: "/a.ts", offset: 10, limit: 50, output: { line_count: 50, truncated: false, language: "ts" } },
    });
  });

  it("[TPR-RED-04] modify_file: each mutation's content, old_content, new_content, diff removed; paths, types, lines kept", () => {
    const meta = {
      normalized: {
        kind: "modify_file",
        modify_file: {
          file_path: "/a.ts",
          mutations: [
            { type: "replace", old_content: BIG, new_content: "b", diff: "-a\n+b", start_line: 3, end_line: 9 },
            { type: "create", content: BIG, new_path: "/b.ts" },
            { type: "rename", new_path: "/c.ts" },
          ],
        },
      },
    };
    const result = reduce("tool_edit", meta);
    expect(changed(result).removedFields).toEqual([
      "normalized.modify_file.mutations.*.content",
      "normalized.modify_file.mutations.*.old_content",
      "normalized.modify_file.mutations.*.new_content",
      "normalized.modify_file.mutations.*.diff",
    ]);
    expect(parsed(result).normalized).toEqual({
      kind: "modify_file",
      modify_file: {
        file_path: "/a.ts",
        mutations: [
          { type: "replace", start_line: 3, end_line: 9 },
          { type: "create", new_path: "/b.ts" },
          { type: "rename", new_path: "/c.ts" },
        ],
      },
    });
  });

  it("[TPR-RED-05] code_search: output.files removed; query, scope, file count kept", () => {
    const files = Array.from({ length: 300 }, (_, i) => `src/file-${i}.ts`);
    const meta = {
      normalized: {
        kind: "code_search",
        code_search: { query: "foo", pattern: "foo.*", path: "src", glob: "*.ts", output: { files, file_count: 300, truncated: false } },
      },
    };
    const result = reduce("tool_search", meta);
    expect(changed(result).removedFields).toEqual(["normalized.code_search.output.files"]);
    expect(parsed(result).normalized).toEqual({
      kind: "code_search",
      code_search: { query: "foo", pattern: "foo.*", path: "src", glob: "*.ts", output: { file_count: 300, truncated: false } },
    });
  });

  it("[TPR-RED-06] http_request: response removed; URL, method, error status kept", () => {
    const meta = { normalized: { kind: "http_request", http_request: { url: "https://x.test/a", method: "GET", response: { body: BIG }, is_error: true } } };
    const result = reduce("tool_call", meta);
    expect(changed(result).removedFields).toEqual(["normalized.http_request.response"]);
    expect(parsed(result).normalized).toEqual({
      kind: "http_request",
      http_request: { url: "https://x.test/a", method: "GET", is_error: true },
    });
  });

  it("[TPR-RED-07] metadata.result is removed on every supported kind, and only present fields are listed", () => {
    const rows: [string, unknown][] = [
      ["tool_execute", shell({ exit_code: 0 }, { result: BIG })],
      ["tool_read", { normalized: { kind: "read_file", read_file: { file_path: "/a" } }, result: BIG }],
      ["tool_edit", { normalized: { kind: "modify_file", modify_file: { mutations: [] } }, result: BIG }],
      ["tool_search", { normalized: { kind: "code_search", code_search: { query: "q" } }, result: BIG }],
      ["tool_call", { normalized: { kind: "http_request", http_request: { url: "u" } }, result: BIG }],
      ["tool_call", { normalized: { kind: "generic", generic: { name: "n" } }, result: BIG }],
    ];
    for (const [type, meta] of rows) {
      const result = reduce(type, meta);
      expect(changed(result).removedFields).toEqual(["result"]);
      expect(parsed(result)).not.toHaveProperty("result");
    }
    const onlyStdout = reduce("tool_execute", shell({ exit_code: 0, stdout: BIG }));
    expect(changed(onlyStdout).removedFields).toEqual(["normalized.shell_exec.output.stdout"]);
  });

  it("[TPR-RED-08] metadata.title and every non-payload field stay; content is never an input", () => {
    const result = reduce("tool_execute", shell({ exit_code: 0, stdout: BIG }, { title: "Run the whole suite" }));
    const body = parsed(result);
    expect(body.title).toBe("Run the whole suite");
    expect(body.tool_call_id).toBe("c1");
    expect(body.status).toBe("complete");
  });
});

describe("reduceToolPayload eligibility of a row", () => {
  it("[TPR-RED-09] only tool message types with their matching normalized kind qualify", () => {
    expect(reduce("tool_call", shell({ stdout: BIG }))).toEqual({ outcome: "skipped", reason: "unsupported" });
    expect(reduce("tool_execute", { normalized: { kind: "generic", generic: { output: BIG } } }).outcome).toBe("skipped");
    expect(reduce("tool_read", { normalized: { kind: "modify_file", modify_file: { mutations: [{ diff: BIG }] } } }).outcome).toBe("skipped");
    expect(reduce("tool_execute", { result: BIG })).toEqual({ outcome: "skipped", reason: "unsupported" });
    expect(reduce("tool_execute", { normalized: { kind: "unknown_kind", unknown_kind: { stdout: BIG } } }).outcome).toBe("skipped");
    for (const type of ["message", "content", "progress", "log", "error", "status", "permission_request", "clarification_request", "thinking", "agent_plan", "todo", "constructor", "__proto__"]) {
      expect(reduce(type, shell({ stdout: BIG })), type).toEqual({ outcome: "skipped", reason: "unsupported" });
    }
  });

  it("[TPR-RED-10] numbers keep their digits, unknown fields and key order stay byte-for-byte", () => {
    const input =
      '{"z_first":{"deep":[1,{"x":null}]},"big":9007199254740993,"dec":1.10,"huge":1e400,"neg":-0,"exp":1E+2,' +
      '"esc":"caf\\u00e9 \\"q\\" \\/","normalized":{"kind":"shell_exec","extra":{"keep":true},' +
      `"shell_exec":{"command":"ls","output":{"exit_code":0,"stdout":"${BIG}","unknown":123456789012345678901234567890}}},"tail":[]}`;
    const result = changed(reduce("tool_execute", input));
    const expectedPrefix =
      '{"z_first":{"deep":[1,{"x":null}]},"big":9007199254740993,"dec":1.10,"huge":1e400,"neg":-0,"exp":1E+2,' +
      '"esc":"caf\\u00e9 \\"q\\" \\/","normalized":{"kind":"shell_exec","extra":{"keep":true},' +
      '"shell_exec":{"command":"ls","output":{"exit_code":0,"unknown":123456789012345678901234567890}}},"tail":[]';
    expect(result.metadata.startsWith(`${expectedPrefix},"payload_retention":{`)).toBe(true);
    expect(result.metadata.endsWith("}}")).toBe(true);
  });

  it("[TPR-RED-10] pretty-printed input keeps its whitespace outside the removed members", () => {
    const input = JSON.stringify(shell({ exit_code: 0, stdout: BIG, stderr: BIG }), null, 2);
    const result = changed(reduce("tool_execute", input));
    expect(JSON.parse(result.metadata)).toMatchObject({ title: "npm test", normalized: { shell_exec: { output: { exit_code: 0 } } } });
    expect(result.metadata).toContain('"output": {\n        "exit_code": 0\n      }');
    expect(netBytes(input, result)).toBe(result.removedBytes);
  });

  it("[TPR-RED-11] never-compacted kinds and contract rows are kept; attachments, entity refs and provenance survive", () => {
    for (const kind of ["create_task", "subagent_task", "show_plan", "manage_todos", "misc"]) {
      expect(reduce("tool_call", { normalized: { kind, [kind]: { output: BIG } }, result: BIG }), kind).toEqual({
        outcome: "skipped",
        reason: "unsupported",
      });
    }
    for (const type of ["permission_request", "clarification_request", "agent_plan", "todo"]) {
      expect(reduce(type, { status: "approved", result: BIG }).outcome).toBe("skipped");
    }
    const meta = shell(
      { exit_code: 0, stdout: BIG },
      { attachments: [{ name: "a.png", size: 10 }], entity_refs: [{ type: "task", id: "t9" }], provider: { name: "acp", raw_id: "r1" } },
    );
    const body = parsed(reduce("tool_execute", meta));
    expect(body.attachments).toEqual([{ name: "a.png", size: 10 }]);
    expect(body.entity_refs).toEqual([{ type: "task", id: "t9" }]);
    expect(body.provider).toEqual({ name: "acp", raw_id: "r1" });
  });

  it("[TPR-RED-12] background_work or monitor provenance anywhere in the payload keeps the row", () => {
    const cases = [
      { normalized: { kind: "shell_exec", background_work: { id: "b1" }, shell_exec: { output: { stdout: BIG } } } },
      { normalized: { kind: "shell_exec", shell_exec: { monitor: true, output: { stdout: BIG } } } },
      { normalized: { kind: "shell_exec", shell_exec: { output: { stdout: BIG, meta: [{ background_work: 1 }] } } } },
      { monitor: { id: "m" }, normalized: { kind: "shell_exec", shell_exec: { output: { stdout: BIG } } } },
    ];
    for (const meta of cases) expect(reduce("tool_execute", meta)).toEqual({ outcome: "skipped", reason: "unsupported" });
    // A key spelled with a \u escape in the stored text is still that key.
    const escaped = JSON.stringify({ normalized: { kind: "shell_exec", shell_exec: { KEY: true, output: { stdout: BIG } } } }).replace("KEY", "\\u006donitor");
    expect(escaped).not.toContain("monitor");
    expect(reduce("tool_execute", escaped)).toEqual({ outcome: "skipped", reason: "unsupported" });
    // The words inside a string value are not provenance.
    expect(reduce("tool_execute", shell({ stdout: `monitor background_work ${BIG}` })).outcome).toBe("changed");
  });

  it("[TPR-RED-13] control tools are kept, by generic name or tool_name, MCP-qualified or not", () => {
    const generic = (name: string) => ({ normalized: { kind: "generic", generic: { name, input: { a: BIG }, output: BIG } } });
    for (const name of ["create_task", "mcp__kandev__create_task", "TodoWrite", "todo_write", "ask_user_question", "ReadMcpResourceTool"]) {
      expect(reduce("tool_call", generic(name)), name).toEqual({ outcome: "skipped", reason: "unsupported" });
    }
    expect(reduce("tool_call", { ...generic("fetch"), tool_name: "update_task_plan" }).outcome).toBe("skipped");
    expect(reduce("tool_call", generic("fetch_docs")).outcome).toBe("changed");
  });

  it("[TPR-RED-13] structured results (resource, resource_link, image, audio, structuredContent, contract _meta, unknown envelopes) keep the row", () => {
    const text = { type: "text", text: BIG };
    const structured: unknown[] = [
      { content: [text, { type: "resource", resource: { uri: "file:///a", text: "x" } }] },
      { content: [{ type: "resource_link", uri: "file:///a", name: "a" }] },
      { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      { content: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] },
      { content: [text], structuredContent: { plan: [1] } },
      { content: [text], _meta: { plan_id: "p1" } },
      { content: [{ ...text, _meta: { attachment: { id: 1 } } }] },
      { content: "not an array" },
      { foo: BIG },
      [text, { type: "image", data: "A" }],
      { content: [{ type: "text", text: 5 }] },
      { content: [text], isError: "yes" },
    ];
    for (const value of structured) {
      expect(reduce("tool_execute", shell({ stdout: BIG }, { result: value })), JSON.stringify(value).slice(0, 80)).toEqual({
        outcome: "skipped",
        reason: "unsupported",
      });
      expect(reduce("tool_call", { normalized: { kind: "generic", generic: { name: "x", output: value } } }).outcome).toBe("skipped");
    }
    const plain: unknown[] = [
      BIG,
      { content: [text] },
      { content: [text, { type: "text", text: "more", annotations: { audience: ["user"] } }], isError: true },
      { content: [text], _meta: { progressToken: 3 } },
      [text],
      null,
    ];
    for (const value of plain) {
      expect(changed(reduce("tool_execute", shell({ stdout: BIG }, { result: value }))).removedFields).toContain("result");
      const generic = { normalized: { kind: "generic", generic: { name: "x", input: BIG, output: value } } };
      expect(changed(reduce("tool_call", generic)).removedFields).toContain("normalized.generic.output");
    }
  });

  it("[TPR-RED-13] an ambiguous envelope (repeated key on the path) is kept", () => {
    const input = `{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"${BIG}"},"output":{"stdout":"${BIG}"}}}}`;
    expect(reduce("tool_execute", input)).toEqual({ outcome: "skipped", reason: "unsupported" });
    const twoKinds = `{"normalized":{"kind":"shell_exec","kind":"generic","shell_exec":{"output":{"stdout":"${BIG}"}}}}`;
    expect(reduce("tool_execute", twoKinds)).toEqual({ outcome: "skipped", reason: "unsupported" });
  });
});

describe("reduceToolPayload marker and skips", () => {
  it("[TPR-RED-14] the marker is the last key: version 1, removed_at, removed_fields, removed_bytes and nothing else", () => {
    const input = JSON.stringify(shell({ exit_code: 0, stdout: BIG, stderr: "secret-output" }, { result: "result text" }));
    const result = changed(reduce("tool_execute", input));
    const body = parsed(result);
    expect(Object.keys(body).at(-1)).toBe("payload_retention");
    expect(body.payload_retention).toEqual({
      version: 1,
      removed_at: AT,
      removed_fields: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr", "result"],
      removed_bytes: result.removedBytes,
    });
    expect(Number.isInteger(result.removedBytes)).toBe(true);
    expect(result.metadata).not.toContain("secret-output");
    expect(result.metadata).not.toContain("result text");
    expect(result.metadata).not.toMatch(/[0-9a-f]{64}/);
  });

  it("[TPR-RED-14] removed_bytes equals the exact UTF-8 reduction, marker included, across 999/1000, 9999/10000 and 99999/100000", () => {
    const seen = new Set<number>();
    let padded = 0;
    const stdoutOfBytes = (filler: string, bytes: number) => {
      const unit = Buffer.byteLength(filler);
      return filler.repeat(Math.floor(bytes / unit)) + "b".repeat(bytes % unit);
    };
    const run = (stdout: string) => {
      const input = JSON.stringify(shell({ exit_code: 0, stdout }));
      return { input, result: reduce("tool_execute", input) };
    };
    for (const target of [1000, 10_000, 100_000]) {
      for (const filler of ["a", "é", "€", "😀"]) {
        // Calibrate the marker overhead once, then walk the stdout size byte by byte across the boundary.
        const probe = changed(run(stdoutOfBytes(filler, target)).result);
        const offset = target - probe.removedBytes;
        for (let extra = -12; extra <= 12; extra++) {
          const { input, result } = run(stdoutOfBytes(filler, target + offset + extra));
          if (result.outcome !== "changed") throw new Error("expected a change");
          expect(netBytes(input, result)).toBe(result.removedBytes);
          expect((JSON.parse(result.metadata) as { payload_retention: { removed_bytes: number } }).payload_retention.removed_bytes).toBe(
            result.removedBytes,
          );
          if (result.metadata.includes('"removed_bytes": ')) padded++;
          seen.add(result.removedBytes);
        }
      }
    }
    for (const boundary of [999, 1000, 9999, 10_000, 99_999, 100_000]) expect(seen.has(boundary), String(boundary)).toBe(true);
    // The single cut size per boundary without a compact solution was met and kept exact.
    expect(padded).toBeGreaterThan(0);
  });

  it("[TPR-RED-15] a row with nothing to remove, or whose marker would not shrink it, is skipped no_payload", () => {
    expect(reduce("tool_execute", shell({ exit_code: 0 }))).toEqual({ outcome: "skipped", reason: "no_payload" });
    expect(reduce("tool_execute", shell({ exit_code: 0, stdout: "tiny" }))).toEqual({ outcome: "skipped", reason: "no_payload" });
    // Find the largest stdout that still does not pay for its marker: equal or larger is skipped.
    let lastSkipped = -1;
    for (let n = 0; n < 400; n++) {
      const result = reduce("tool_execute", shell({ exit_code: 0, stdout: "s".repeat(n) }));
      if (result.outcome === "skipped") lastSkipped = n;
      else expect(result.removedBytes).toBeGreaterThanOrEqual(1);
    }
    expect(lastSkipped).toBeGreaterThan(100);
    const first = changed(reduce("tool_execute", shell({ exit_code: 0, stdout: "s".repeat(lastSkipped + 1) })));
    expect(first.removedBytes).toBe(1);
  });

  it("[TPR-RED-15] malformed, oversize and already-removed rows are skipped with their reason", () => {
    for (const text of ["", "not json", "[1,2]", '"str"', "42", "{", '{"a":1,}', '{"a":01}', '{"a":"\u0001"}', '{"a":"\\x"}', "{} {}", "{'a':1}", "{\"a\":NaN}"]) {
      expect(reduce("tool_execute", text), text).toEqual({ outcome: "skipped", reason: "malformed" });
    }
    const deep = `${"[".repeat(2000)}${"]".repeat(2000)}`;
    expect(reduce("tool_execute", `{"normalized":${deep}}`)).toEqual({ outcome: "skipped", reason: "malformed" });
    const once = changed(reduce("tool_execute", shell({ stdout: BIG })));
    expect(reduceToolPayload({ type: "tool_execute", metadata: once.metadata, removedAt: AT })).toEqual({
      outcome: "skipped",
      reason: "already_removed",
    });
    expect(reduce("tool_execute", shell({ stdout: BIG }, { payload_retention: { version: 1 } }))).toEqual({
      outcome: "skipped",
      reason: "already_removed",
    });
  });

  it("[TPR-RED-15] rows over 32 MiB of UTF-8 are oversize, counted in bytes not characters", () => {
    const head = '{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"';
    const tail = '"}}}}';
    const ascii = head + "a".repeat(MAX_METADATA_BYTES - head.length - tail.length) + tail;
    expect(Buffer.byteLength(ascii)).toBe(MAX_METADATA_BYTES);
    expect(netBytes(ascii, reduce("tool_execute", ascii))).toBe(changed(reduce("tool_execute", ascii)).removedBytes);
    // 12 M two-byte characters: long enough that the size check counts bytes, and still exact.
    const accented = head + "é".repeat(12_000_000) + tail;
    const accentedResult = reduce("tool_execute", accented);
    expect(netBytes(accented, accentedResult)).toBe(changed(accentedResult).removedBytes);
    expect(reduce("tool_execute", ascii.replace('"stdout":"', '"stdout":"a'))).toEqual({ outcome: "skipped", reason: "oversize" });
    // 11.2 M three-byte characters: fewer than 32 Mi UTF-16 units, more than 32 MiB of UTF-8.
    const euro = head + "€".repeat(11_200_000) + tail;
    expect(euro.length).toBeLessThan(MAX_METADATA_BYTES);
    expect(reduce("tool_execute", euro)).toEqual({ outcome: "skipped", reason: "oversize" });
  });

  it("[TPR-RED-16] the same input always yields the same bytes; a second pass is already_removed (idempotent)", () => {
    const input = JSON.stringify(shell({ exit_code: 0, stdout: BIG, stderr: BIG }, { result: { content: [{ type: "text", text: BIG }] } }));
    const a = changed(reduce("tool_execute", input));
    const b = changed(reduce("tool_execute", input));
    expect(b).toEqual(a);
    expect(reduce("tool_execute", a.metadata)).toEqual({ outcome: "skipped", reason: "already_removed" });
  });

  it("rejects a removedAt that is not RFC 3339 (a caller bug, not data)", () => {
    expect(() => reduceToolPayload({ type: "tool_execute", metadata: "{}", removedAt: "yesterday" })).toThrow(TypeError);
  });
});
