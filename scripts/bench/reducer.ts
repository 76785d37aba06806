// Benchmark: the Messages compaction payload reducer against baselines
// measured in the same run on the same text.
//   npx tsx --conditions=react-server scripts/bench/reducer.ts [--quick]
// Baselines:
//   - sqlite_json_remove: SQLite's json_remove over the same paths through
//     better-sqlite3 (native, keeps number literals, no marker, no checks);
//   - json_parse_stringify: JSON.parse + delete + JSON.stringify (lossy:
//     rounds 9007199254740993, so unusable here, shown as a speed reference);
//   - lossless_json: lossless-json parse + delete + stringify (exact).
// Prints one JSON object and a one-line summary.
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { parse as losslessParse, stringify as losslessStringify } from "lossless-json";
import { reduceToolPayload } from "@/server/compaction/reducer/reducer";

const quick = process.argv.includes("--quick");
const MiB = 1024 * 1024;
const REMOVED_AT = "2026-06-01T00:00:00.000Z";

// Parsed benchmark documents are walked by their known shape only.
type Holder = Record<string, unknown>;
type ShellTree = { normalized: { shell_exec: { output: Holder } } } & Holder;
type SearchTree = { normalized: { code_search: { output: Holder } } } & Holder;
type Doc = { name: string; type: string; text: string; sqlitePaths: string[]; jsDelete: (doc: unknown) => void };

function shellOutput(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 17 === 0 ? `\tat "src/module-${i}.ts":${i} — ✓ ok` : `  PASS test/case-${i}.spec.ts (${i % 97} ms) "quoted" \\path`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

function shellDoc(bytes: number): Doc {
  const meta = {
    tool_call_id: "call_1",
    title: "npm test",
    status: "complete",
    seq: 9007199254740993n.toString(),
    normalized: {
      kind: "shell_exec",
      shell_exec: { command: "npm test", work_dir: "/repo", timeout: 600, output: { exit_code: 0, stdout: shellOutput(bytes), stderr: "warn", truncated: false } },
    },
    result: "exit 0",
  };
  return {
    name: `shell_exec ${Math.round(bytes / 1024)} KiB`,
    type: "tool_execute",
    text: JSON.stringify(meta),
    sqlitePaths: ["$.normalized.shell_exec.output.stdout", "$.normalized.shell_exec.output.stderr", "$.result"],
    jsDelete: (doc) => {
      const tree = doc as ShellTree;
      delete tree.normalized.shell_exec.output.stdout;
      delete tree.normalized.shell_exec.output.stderr;
      delete tree.result;
    },
  };
}

function searchDoc(files: number): Doc {
  const meta = {
    tool_call_id: "call_2",
    normalized: {
      kind: "code_search",
      code_search: {
        query: "useEffect",
        output: { files: Array.from({ length: files }, (_, i) => `packages/app-${i % 50}/src/components/widget-${i}.tsx`), file_count: files, truncated: false },
      },
    },
  };
  return {
    name: `code_search ${files} files`,
    type: "tool_search",
    text: JSON.stringify(meta),
    sqlitePaths: ["$.normalized.code_search.output.files", "$.result"],
    jsDelete: (doc) => {
      const tree = doc as SearchTree;
      delete tree.normalized.code_search.output.files;
      delete tree.result;
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measure(runs: number, fn: () => unknown): number {
  fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const sqlite = new Database(":memory:");
const sizes = quick ? [64 * 1024, 1 * MiB] : [64 * 1024, 1 * MiB, 8 * MiB, 26 * MiB];
const docs: Doc[] = [...sizes.map(shellDoc), searchDoc(quick ? 10_000 : 100_000)];

// Literal fidelity check of the SQLite baseline on the same kind of text.
const literalProbe = '{"a":9007199254740993,"b":1.10,"c":1e400,"d":-0,"result":"x"}';
const sqliteLiteralOut = sqlite.prepare("SELECT json_remove(?, '$.result')").pluck().get(literalProbe) as string;

const rows = docs.map((doc) => {
  const bytes = Buffer.byteLength(doc.text);
  const runs = Math.max(3, Math.min(15, Math.floor((64 * MiB) / bytes)));
  const sqlStatement = sqlite.prepare(`SELECT json_remove(?, ${doc.sqlitePaths.map(() => "?").join(", ")})`).pluck();
  const result = reduceToolPayload({ type: doc.type, metadata: doc.text, removedAt: REMOVED_AT });
  if (result.outcome !== "changed") throw new Error(`reducer skipped ${doc.name}: ${result.reason}`);
  const timings = {
    reducer: measure(runs, () => reduceToolPayload({ type: doc.type, metadata: doc.text, removedAt: REMOVED_AT })),
    sqlite_json_remove: measure(runs, () => sqlStatement.get(doc.text, ...doc.sqlitePaths)),
    json_parse_stringify: measure(runs, () => {
      const parsed: unknown = JSON.parse(doc.text);
      doc.jsDelete(parsed);
      return JSON.stringify(parsed);
    }),
    lossless_json: measure(Math.min(runs, 5), () => {
      const parsed: unknown = losslessParse(doc.text);
      doc.jsDelete(parsed);
      return losslessStringify(parsed);
    }),
  };
  const mibPerSecond = Object.fromEntries(Object.entries(timings).map(([k, ms]) => [k, Number((bytes / MiB / (ms / 1000)).toFixed(1))]));
  return {
    doc: doc.name,
    inputBytes: bytes,
    removedBytes: result.removedBytes,
    exactBytes: Buffer.byteLength(doc.text) - Buffer.byteLength(result.metadata) === result.removedBytes,
    runs,
    medianMs: Object.fromEntries(Object.entries(timings).map(([k, ms]) => [k, Number(ms.toFixed(2))])),
    mibPerSecond,
    reducerVsSqlite: Number((mibPerSecond.reducer! / mibPerSecond.sqlite_json_remove!).toFixed(2)),
    reducerVsLosslessJson: Number((mibPerSecond.reducer! / mibPerSecond.lossless_json!).toFixed(2)),
  };
});

const output = {
  bench: "reducer",
  node: process.version,
  sqlite: sqlite.prepare("SELECT sqlite_version()").pluck().get(),
  sqliteKeepsLiterals: sqliteLiteralOut === '{"a":9007199254740993,"b":1.10,"c":1e400,"d":-0}',
  sqliteLiteralOutput: sqliteLiteralOut,
  rows,
};
console.log(JSON.stringify(output, null, 2));
const worst = rows.reduce((a, b) => (a.reducerVsSqlite < b.reducerVsSqlite ? a : b));
const largest = rows.reduce((a, b) => (a.inputBytes > b.inputBytes ? a : b));
console.log(
  `reducer: ${largest.mibPerSecond.reducer} MiB/s on ${largest.doc} (sqlite json_remove ${largest.mibPerSecond.sqlite_json_remove}, lossless-json ${largest.mibPerSecond.lossless_json}, JSON.parse ${largest.mibPerSecond.json_parse_stringify}); ` +
    `worst ratio vs sqlite ${worst.reducerVsSqlite}x (${worst.doc}); exact bytes on all rows: ${rows.every((r) => r.exactBytes)}`,
);
