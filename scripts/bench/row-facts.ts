// Facts read micro-benchmark (issue 11): judges every tool row of a generated
// workspace with the store's readToolRowFacts, page by page, against reading
// the same rows' bodies (one plain SELECT per row, the cheapest way to see
// each payload) in the same run.
//   npx tsx --conditions=react-server scripts/bench/row-facts.ts [--messages 50000] [--huge 4] [--rounds 3] [--db FILE]
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase } from "@/server/db/client";
import { sqliteCompactionVerbs } from "@/server/compaction/store/sqlite-store";
import type { RowHeader } from "@/server/compaction/store";
import { generateWorkspace } from "../gen-large-workspace";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const messages = Number(arg("messages", "50000"));
const huge = Number(arg("huge", "4"));
const rounds = Number(arg("rounds", "3"));
const dir = arg("dir", "/tmp/bench-row-facts");
fs.mkdirSync(dir, { recursive: true });
// --db: an existing workspace (for example compaction.ts's base with its 500k-message task).
const file = arg("db", "") || path.join(dir, `base-${messages}-${huge}.db`);
if (!fs.existsSync(file)) generateWorkspace({ file, messages, hugeRows: huge, log: (l) => process.stderr.write(`${l}\n`) });

const { sqlite } = openDatabase({ file, migrate: false });
// The verbs as the store runs them in one step on its connection (the lifted store adds only a microtask).
const store = sqliteCompactionVerbs(sqlite);
const pages: Array<{ sessionId: string; rows: RowHeader[] }> = [];
const upper = store.captureBounds().upperMessageRowid ?? 0;
for (const { id: sessionId } of sqlite.prepare("select id from task_sessions order by id").all() as Array<{ id: string }>) {
  let after: number | null = null;
  for (;;) {
    const rows = store.listToolRowHeaders({ sessionId, afterRowid: after, upperRowid: upper, limit: 200 });
    if (rows.length === 0) break;
    pages.push({ sessionId, rows });
    after = rows[rows.length - 1]!.rowid;
  }
}
const rowCount = pages.reduce((n, p) => n + p.rows.length, 0);
const bytes = pages.reduce((n, p) => p.rows.reduce((m, r) => m + r.bytes, n), 0);

function time(fn: () => number): { ms: number; out: number } {
  const start = performance.now();
  const out = fn();
  return { ms: performance.now() - start, out };
}
const facts = () => pages.reduce((n, p) => n + store.readToolRowFacts(p).filter((r) => r.facts !== null).length, 0);
const bodies = () => pages.reduce((n, p) => n + store.readToolRowBodies(p).length, 0);

const results: Array<{ factsMs: number; bodiesMs: number; judged: number }> = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ["facts", "bodies"] : ["bodies", "facts"];
  const r: Record<string, { ms: number; out: number }> = {};
  for (const side of order) r[side] = time(side === "facts" ? facts : bodies);
  results.push({ factsMs: Math.round(r.facts!.ms), bodiesMs: Math.round(r.bodies!.ms), judged: r.facts!.out });
}
sqlite.close();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const factsMs = median(results.map((r) => r.factsMs));
const bodiesMs = median(results.map((r) => r.bodiesMs));
console.log(JSON.stringify({ rows: rowCount, mb: Number((bytes / 1e6).toFixed(1)), rounds: results, factsMs, bodiesMs }));
console.log(`row facts: ${rowCount} rows (${(bytes / 1e6).toFixed(1)} MB) judged in ${factsMs} ms (${(bytes / 1e3 / factsMs).toFixed(1)} MB/s) vs bodies read in ${bodiesMs} ms (${(factsMs / bodiesMs).toFixed(2)}x)`);
