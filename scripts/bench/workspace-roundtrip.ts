// Benchmark: demo seeding, task export and fixture import, against baselines
// measured in the same run on the same data.
//   npx tsx --conditions=react-server scripts/bench/workspace-roundtrip.ts
// Baselines:
//   - raw_insert: the same message rows written with one prepared INSERT
//     (no validation, no canonical JSON, no tool_call_id) — the floor for import;
//   - lossless_json_parse: lossless-json parse of the same export text — the
//     library alternative to our span-keeping tree parser.
// Prints one JSON object and a one-line summary.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parse as losslessParse } from "lossless-json";
import { openDatabase } from "@/server/db/client";
import { seedDemoWorkspace } from "@/server/workspace/demo/seed";
import { exportTask } from "@/server/workspace/export/export-task";
import { importFixture } from "@/server/workspace/fixture/import-fixture";
import { parseJsonTree } from "@/server/json/scan";
import { createSqliteWorkspaceStore } from "@/server/workspace/sqlite-store";
import { wrapSqliteDb } from "@/server/db/sqlite-db";

const MiB = 1024 * 1024;
const NOW = Date.UTC(2026, 10, 29, 12);

async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-roundtrip-"));
  try {
    const source = openDatabase({ file: path.join(dir, "source.db") });
    const sourceDb = wrapSqliteDb(source, { reader: false });
    const seed = await timed(() => seedDemoWorkspace({ store: createSqliteWorkspaceStore(sourceDb), seed: 20260101, nowMs: NOW }));
    const ids = (source.sqlite.prepare("select id from tasks order by rowid").all() as { id: string }[]).map((r) => r.id);
    const exported = await timed(async () => {
      const texts: string[] = [];
      for (const id of ids) texts.push(await exportTask(createSqliteWorkspaceStore(sourceDb), id));
      return texts;
    });
    const exportBytes = exported.value.reduce((n, t) => n + Buffer.byteLength(t), 0);

    const target = openDatabase({ file: path.join(dir, "target.db") });
    const targetDb = wrapSqliteDb(target, { reader: false });
    const imported = await timed(async () => {
      for (const [i, text] of exported.value.entries()) await importFixture(createSqliteWorkspaceStore(targetDb), { file: `task-${i}.json`, text });
    });

    // Baseline: the same message rows with a bare INSERT in one transaction.
    const rows = source.sqlite.prepare("select * from messages order by rowid").all() as Record<string, unknown>[];
    const raw = openDatabase({ file: path.join(dir, "raw.db") });
    raw.sqlite.pragma("foreign_keys = OFF");
    const insert = raw.sqlite.prepare(
      `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
       values (@id, @session_id, @turn_id, @author_type, @type, @content, @metadata, @tool_call_id, @created_at, @created_at_ms, @updated_at, @updated_at_ms)`,
    );
    const rawInsert = await timed(() => raw.sqlite.transaction(() => rows.forEach((r) => insert.run({ ...r, rowid: undefined }))).immediate());

    const treeParse = await timed(() => exported.value.forEach((t) => parseJsonTree(t)));
    const libParse = await timed(() => exported.value.forEach((t) => losslessParse(t)));

    const mibs = (bytes: number, ms: number) => Math.round((bytes / MiB / (ms / 1000)) * 10) / 10;
    const result = {
      tasks: seed.value.tasks,
      messages: seed.value.messages,
      payloadMiB: Math.round((seed.value.bytes / MiB) * 10) / 10,
      seedMs: Math.round(seed.ms),
      exportMs: Math.round(exported.ms),
      exportMiBps: mibs(exportBytes, exported.ms),
      importMs: Math.round(imported.ms),
      importMiBps: mibs(exportBytes, imported.ms),
      rawInsertMs: Math.round(rawInsert.ms),
      importVsRawInsert: Math.round((imported.ms / rawInsert.ms) * 10) / 10,
      treeParseMiBps: mibs(exportBytes, treeParse.ms),
      losslessJsonParseMiBps: mibs(exportBytes, libParse.ms),
    };
    for (const h of [source, target, raw]) h.sqlite.close();
    console.log(JSON.stringify(result));
    console.log(
      `seed ${result.seedMs} ms (${result.tasks} tasks, ${result.payloadMiB} MiB); export ${result.exportMiBps} MiB/s; ` +
        `import ${result.importMiBps} MiB/s = ${result.importVsRawInsert}x a bare INSERT; ` +
        `tree parser ${result.treeParseMiBps} MiB/s vs lossless-json ${result.losslessJsonParseMiBps} MiB/s`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
