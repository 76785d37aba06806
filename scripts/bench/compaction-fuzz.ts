// Benchmark and fuzz (issue 25): Messages compaction on any stored bytes.
//   npx tsx --conditions=react-server scripts/bench/compaction-fuzz.ts [--rows 100000] [--families valid,deep] [--seed 1] [--items 20000]
// 1. The differential fuzz of server/compaction/reducer/differential-fuzz.test.ts
//    at --rows rows per family (valid, invalid_utf8, blob, nul_keys,
//    trailing, deep, wide): SQL path, JS reducer and the model's independent
//    expectation, then the pipeline's writes read back byte for byte.
//    Differences must be 0.
// 2. A modify_file row of --items mutation items, judged by the store's facts
//    statement, against the same row through the JS reducer and a naive
//    json_remove of every item's payload (the baselines, same run), and the
//    facts walk that looks each item up by its path from the row without an
//    item bound (before issue 25; the store now walks so at most
//    SQL_MUTATION_ITEMS_MAX items) at a tenth of the items and at the full
//    count; and the costliest row SQL still walks: SQL_MUTATION_ITEMS_MAX items,
//    each with every payload field (1 KiB each), judged by the facts statement.
// 3. A cleanup pass over a workspace with such rows beside ordinary ones:
//    its state and the longest page preparation and batch, against the
//    200 ms batch budget.
// Prints one JSON object and a one-line summary.
import { performance } from "node:perf_hooks";
import { manualClock } from "@/server/clock";
import { createTestDb } from "@/server/db/test-db";
import { runCleanupPass } from "@/server/compaction/cleanup/pass";
import { STATEMENT_DEADLINE_MS } from "@/server/compaction/cleanup/statement-deadline";
import { openDifferential, type Difference, type FamilyStats } from "@/server/compaction/reducer/differential-test-support";
import { FAMILIES, type Family } from "@/server/compaction/reducer/hostile-rows-test-support";
import { reduceToolPayload } from "@/server/compaction/reducer/reducer";
import type { CompactionStore } from "@/server/compaction/store";
import { SQL_MUTATION_ITEMS_MAX } from "@/server/compaction/store/sqlite-row-facts-sql";
import { sqliteCompactionVerbs } from "@/server/compaction/store/sqlite-store";
import { NOW_MS, armPolicy, insertMessage, seedOldTask, storeOf } from "@/server/compaction/test-support";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] && !process.argv[i + 1]!.startsWith("--") ? process.argv[i + 1]! : fallback;
}

const rowsPerFamily = Number(arg("rows", "100000"));
const families = arg("families", FAMILIES.join(",")).split(",") as Family[];
const seed = Number(arg("seed", "1"));
const items = Number(arg("items", "20000"));
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

function time<T>(fn: () => T): { ms: number; out: T } {
  const start = performance.now();
  const out = fn();
  return { ms: round(performance.now() - start, 2), out };
}

// 1. The fuzz.
const fuzz: Record<string, FamilyStats & { ms: number; rowsPerSecond: number }> = {};
const differences: Difference[] = [];
async function runFuzz() {
  for (const family of families) {
    const differential = openDifferential();
    const started = performance.now();
    const out = await differential.run(family, rowsPerFamily, { seed });
    const ms = performance.now() - started;
    await differential.close();
    fuzz[family] = { ...out.stats, ms: Math.round(ms), rowsPerSecond: Math.round(out.stats.rows / (ms / 1000)) };
    differences.push(...out.differences.slice(0, 5));
    process.stderr.write(`${family}: ${out.stats.rows} rows, ${out.stats.differences} differences, ${Math.round(ms / 1000)} s\n`);
  }
}

// 2. One wide modify_file row, three ways.
const wideRow = (count: number) => {
  const mutation = (i: number) => (i % 10 === 0 ? `{"type":"edit","content":"c${i}","diff":"@@ -1 +1 @@"}` : "{}");
  return `{"tool_call_id":"w","normalized":{"kind":"modify_file","modify_file":{"file_path":"/f","mutations":[${Array.from({ length: count }, (_, i) => mutation(i)).join(",")}]}},"result":"${"r".repeat(2000)}"}`;
};
// The walk without an item bound (before issue 25): every item looked up by its path from the row (quadratic).
const PATH_WALK = `select (select json_group_array(json_array(e.type,
    case when e.type = 'object' then (select json_array(count(*), count(*) - count(distinct key)) from json_each(m, e.fullkey)) end,
    octet_length(m -> (e.fullkey || '.content')), octet_length(m -> (e.fullkey || '.old_content')), octet_length(m -> (e.fullkey || '.new_content')), octet_length(m -> (e.fullkey || '.diff'))))
  from json_each(m, '$.normalized.modify_file.mutations') e) from (select jsonb(?) as m)`;
const NAIVE = `select length((select json_group_array(json_remove(e.value, '$.content', '$.old_content', '$.new_content', '$.diff')) from json_each(?, '$.normalized.modify_file.mutations') e))`;

function wideTimings() {
  const t = createTestDb("bench-fuzz-wide-");
  try {
    seedOldTask(t.sqlite, "w", 0);
    const metadata = wideRow(items);
    const rowid = insertMessage(t.sqlite, { id: "w-big", sessionId: "w-s1", type: "tool_edit", metadata });
    // The facts statement itself, synchronously on the connection (the store runs it in one step).
    const store = sqliteCompactionVerbs(t.sqlite);
    const header = { rowid, id: "w-big", type: "tool_edit", bytes: Buffer.byteLength(metadata) };
    const best = (fn: () => unknown, runs = 5) => Math.min(...Array.from({ length: runs }, () => time(fn).ms));
    const facts = best(() => store.readToolRowFacts({ sessionId: "w-s1", rows: [header] }));
    const judged = store.readToolRowFacts({ sessionId: "w-s1", rows: [header] })[0]!.facts !== null;
    const reducer = best(() => reduceToolPayload({ type: "tool_edit", metadata, removedAt: "2026-06-01T00:00:00Z" }));
    const naive = best(() => t.sqlite.prepare(NAIVE).get(metadata));
    const tenth = wideRow(Math.round(items / 10));
    const pathWalkTenth = best(() => t.sqlite.prepare(PATH_WALK).get(tenth), 3);
    const pathWalk = time(() => t.sqlite.prepare(PATH_WALK).get(metadata)).ms;
    // The widest row the facts statement walks, every item carrying every payload field.
    const kib = "p".repeat(1024);
    const limitMetadata = `{"tool_call_id":"l","normalized":{"kind":"modify_file","modify_file":{"file_path":"/f","mutations":[${Array.from({ length: SQL_MUTATION_ITEMS_MAX }, (_, i) => `{"type":"edit","content":"${i}${kib}","old_content":"${kib}","new_content":"${kib}","diff":"${kib}","start_line":${i}}`).join(",")}]}}}`;
    const limitRowid = insertMessage(t.sqlite, { id: "w-limit", sessionId: "w-s1", type: "tool_edit", metadata: limitMetadata });
    const limitHeader = { rowid: limitRowid, id: "w-limit", type: "tool_edit", bytes: Buffer.byteLength(limitMetadata) };
    const limitFacts = best(() => store.readToolRowFacts({ sessionId: "w-s1", rows: [limitHeader] }), 15);
    const limitJudged = store.readToolRowFacts({ sessionId: "w-s1", rows: [limitHeader] })[0]!.facts !== null;
    // Yardstick: a shell row of the same size (no items to look up).
    const shellMetadata = JSON.stringify({ tool_call_id: "s", normalized: { kind: "shell_exec", shell_exec: { command: "make", output: { exit_code: 0, stdout: "x".repeat(limitHeader.bytes - 100) } } } });
    const shellHeader = { rowid: insertMessage(t.sqlite, { id: "w-shell", sessionId: "w-s1", type: "tool_execute", metadata: shellMetadata }), id: "w-shell", type: "tool_execute", bytes: Buffer.byteLength(shellMetadata) };
    const shellFacts = best(() => store.readToolRowFacts({ sessionId: "w-s1", rows: [shellHeader] }), 15);
    const limit = { items: SQL_MUTATION_ITEMS_MAX, bytes: limitHeader.bytes, judgedBySql: limitJudged, factsMs: limitFacts, sameSizeShellFactsMs: shellFacts };
    return { items, bytes: header.bytes, judgedBySql: judged, factsMs: facts, reducerMs: reducer, naiveJsonRemoveMs: naive, pathWalkTenthMs: pathWalkTenth, pathWalkMs: pathWalk, limit };
  } finally {
    t.close();
  }
}
const wide = wideTimings();

// 3. A pass over a workspace with wide rows beside ordinary ones.
async function passOverWideRows() {
  const t = createTestDb("bench-fuzz-pass-");
  try {
    await armPolicy(t.sqlite);
    seedOldTask(t.sqlite, "a", 300);
    for (let i = 0; i < 5; i++) insertMessage(t.sqlite, { id: `a-wide${i}`, sessionId: "a-s1", type: "tool_edit", metadata: wideRow(items) });
    seedOldTask(t.sqlite, "b", 300);
    const inner = storeOf(t.sqlite);
    const pages: number[] = [];
    const bodies: number[] = [0];
    const batches: number[] = [];
    const store: CompactionStore = {
      ...inner,
      readToolRowFacts: async (options) => {
        const started = performance.now();
        const out = await inner.readToolRowFacts(options);
        pages.push(round(performance.now() - started, 2));
        return out;
      },
      readToolRowBodies: async (options) => {
        const started = performance.now();
        const out = await inner.readToolRowBodies(options);
        bodies.push(round(performance.now() - started, 2));
        return out;
      },
      writeTransaction: async (fn, options) => {
        const started = performance.now();
        const out = await inner.writeTransaction(() => fn(store), options);
        batches.push(round(performance.now() - started, 2));
        return out;
      },
    };
    const start = performance.now();
    const out = await runCleanupPass({ store, clock: manualClock(NOW_MS), operationId: "bench", wait: async () => {} });
    const ms = round(performance.now() - start);
    return { state: out.state, changed: out.operation?.changedMessages ?? 0, skipped: out.operation?.skipped ?? {}, passMs: ms, longestFactsReadMs: Math.max(...pages), longestBodiesReadMs: Math.max(...bodies), longestBatchMs: Math.max(...batches), budgetMs: STATEMENT_DEADLINE_MS };
  } finally {
    t.close();
  }
}

async function main() {
  await runFuzz();
  const pass = await passOverWideRows();
  const os = await import("node:os");
  const totalRows = Object.values(fuzz).reduce((n, f) => n + f.rows, 0);
  const totalDifferences = Object.values(fuzz).reduce((n, f) => n + f.differences, 0);
  console.log(JSON.stringify({ rowsPerFamily, seed, cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => round(n)), fuzz, totalRows, totalDifferences, differences, wide, pass }));
  console.log(
    `compaction fuzz: ${totalRows} rows over ${families.length} families (${rowsPerFamily} each), ${totalDifferences} differences; ` +
      `${items}-item row: facts ${wide.factsMs} ms (judged by SQL: ${wide.judgedBySql}), then the JS reducer ${wide.reducerMs} ms, naive json_remove ${wide.naiveJsonRemoveMs} ms, ` +
      `path walk ${wide.pathWalkMs} ms (${wide.pathWalkTenthMs} ms at a tenth); ${wide.limit.items}-item row with every payload: facts ${wide.limit.factsMs} ms (judged by SQL: ${wide.limit.judgedBySql}; a shell row of its size ${wide.limit.sameSizeShellFactsMs} ms); pass ${pass.state}, ${pass.changed} rows, longest facts read ${pass.longestFactsReadMs} ms, bodies read ${pass.longestBodiesReadMs} ms, batch ${pass.longestBatchMs} ms (budget ${pass.budgetMs} ms)`,
  );
}

void main();
