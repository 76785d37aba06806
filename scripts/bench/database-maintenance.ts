// Benchmark: Database page stats and backup verification on a synthetic DB.
//   npx tsx --conditions=react-server scripts/bench/database-maintenance.ts [messages] [payloadBytes]
// Baselines are measured in the same run on the same file:
//   - stats vs a naive body scan (sum(length(metadata)) over messages) and vs count(*);
//   - cached receipt verification vs full verification (hash + integrity_check);
//   - worst event-loop stall during a backup / VACUUM (worker thread) vs the
//     same statement run inline on the main thread.
// Prints one JSON object and a one-line summary.
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { openDatabase } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { createBackup } from "@/server/maintenance/backups/create";
import { createVerificationCache, verifyReceipt, verifyReceiptCached } from "@/server/maintenance/backups/verify";
import { inlineFallbacks } from "@/server/maintenance/sqlite-thread";
import { vacuumDatabase } from "@/server/maintenance/vacuum";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

const messages = Number(process.argv[2] ?? 50_000);
const payloadBytes = Number(process.argv[3] ?? 4_000);
const runs = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function time(fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return Number(median(samples).toFixed(2));
}

/** Worst event-loop delay (ms) while fn runs: what an HTTP request would wait. */
async function worstStall(fn: () => unknown): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, 30));
  await fn();
  // Let the sampling timer fire once more so a blocking fn is recorded.
  await new Promise((resolve) => setTimeout(resolve, 30));
  histogram.disable();
  return Number((histogram.max / 1e6).toFixed(1));
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-maint-"));
  const handle = openDatabase({ file: path.join(dir, "workspace.db") });
  const { sqlite } = handle;
  const seed = sqlite.transaction(() => {
    sqlite.prepare("insert into tasks (id, title, state, created_at, updated_at) values ('t', 'T', 'COMPLETED', 'x', 'x')").run();
    sqlite.prepare("insert into task_sessions (id, task_id, state, updated_at) values ('s', 't', 'COMPLETED', 'x')").run();
    const insert = sqlite.prepare(
      "insert into messages (id, session_id, author_type, type, metadata, created_at, updated_at) values (?, 's', 'agent', 'tool_execute', ?, 'x', 'x')",
    );
    const body = JSON.stringify({ normalized: { kind: "shell_exec", shell_exec: { output: { stdout: "y".repeat(payloadBytes) } } } });
    for (let i = 0; i < messages; i++) insert.run(`m${i}`, body);
  });
  seed();
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  const fileBytes = fs.statSync(handle.file).size;

  // Cold-ish first read of each, then medians of warm runs.
  const statsMs = await time(() => createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })).databaseStats());
  const bodyScanMs = await time(() => sqlite.prepare("select sum(length(metadata)) from messages").get());
  const countMs = await time(() => sqlite.prepare("select count(*) from messages").get());
  const statsStallMs = await worstStall(() => createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })).databaseStats());
  const bodyScanStallMs = await worstStall(() => sqlite.prepare("select sum(length(metadata)) from messages").get());

  const log = createLogger({ level: "silent" });
  const clock = { now: () => Date.parse("2026-11-29T22:30:00Z") };
  const backupStart = performance.now();
  let receipt = await createBackup({ store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })), dbFile: handle.file, clock, label: "manual", guard: createMaintenanceGuard(), log });
  const backupMs = Number((performance.now() - backupStart).toFixed(2));
  const backupStallMs = await worstStall(async () => {
    receipt = await createBackup({ store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })), dbFile: handle.file, clock: { now: () => clock.now() + 1000 }, label: "manual", guard: createMaintenanceGuard(), log });
  });
  const inlineSnapshotStallMs = await worstStall(() => sqlite.prepare("VACUUM INTO ?").run(path.join(dir, "inline.db")));
  sqlite.prepare("update messages set metadata = '{}' where rowid % 2 = 0").run();
  const vacuumStallMs = await worstStall(() => vacuumDatabase({ store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })), clock, guard: createMaintenanceGuard(), log }));
  sqlite.prepare("update messages set metadata = '{}' where rowid % 3 = 0").run();
  const inlineVacuumStallMs = await worstStall(() => sqlite.exec("VACUUM"));
  const fullVerifyMs = await time(() => verifyReceipt({ store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })), dbFile: handle.file, receipt }));
  const cache = createVerificationCache();
  await verifyReceiptCached({ store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })), dbFile: handle.file, receipt, cache });
  const cachedVerifyMs = await time(() => verifyReceiptCached({ store: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })), dbFile: handle.file, receipt, cache }));

  sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const result = {
    benchmark: "database-maintenance",
    messages,
    payloadBytes,
    fileBytes,
    medianOfRuns: runs,
    statsMs,
    baselineBodyScanMs: bodyScanMs,
    baselineCountMs: countMs,
    backupMs,
    backupBytes: receipt.sizeBytes,
    fullVerifyMs,
    cachedVerifyMs,
    statsStallMs,
    baselineBodyScanStallMs: bodyScanStallMs,
    backupStallMs,
    baselineInlineSnapshotStallMs: inlineSnapshotStallMs,
    vacuumStallMs,
    baselineInlineVacuumStallMs: inlineVacuumStallMs,
    // Must be 0: every maintenance statement really ran on the worker thread.
    inlineFallbacks: inlineFallbacks.count,
  };
  console.log(JSON.stringify(result));
  console.log(
    `stats ${statsMs} ms vs body scan ${bodyScanMs} ms (count(*) ${countMs} ms) on ${(fileBytes / 1e6).toFixed(0)} MB; ` +
      `backup ${backupMs} ms; verify full ${fullVerifyMs} ms vs cached ${cachedVerifyMs} ms; ` +
      `event-loop stall: stats ${statsStallMs} ms vs body scan ${bodyScanStallMs} ms, backup ${backupStallMs} ms vs inline ${inlineSnapshotStallMs} ms, vacuum ${vacuumStallMs} ms vs inline ${inlineVacuumStallMs} ms`,
  );
}

void main();
