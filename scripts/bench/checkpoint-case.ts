// One benchmark case, run in a fresh child process by checkpoint-channels.ts:
// N scripted turns on SqliteSaver (through our saver wrapper and accessor) in
// a temp database with admission cleanup on, as production runs them (each
// run reclaims the previous run's duration leaf), then warm/cold reads, a
// branch from the first answer, storage stats and a digest of the
// materialized conversation. Prints one JSON object on stdout.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { openSqliteDb, wrapSqliteDb } from "@/server/db/sqlite-db";
import { systemClock } from "@/server/clock";
import { createCheckpointAccessor } from "@/server/checkpoints/accessor";
import { digestValues } from "@/server/checkpoints/digest";
import type { ModeConfig } from "@/server/checkpoints/mode";
import { startRun } from "@/server/checkpoints/runs";
import { openSqliteCheckpoints } from "@/server/checkpoints/sqlite-saver";
import { createThreadLocks } from "@/server/checkpoints/thread-lock";
import { branch, createThread } from "@/server/checkpoints/threads";
import { admissionHook } from "@/server/checkpoints/cleanup/admission-cleanup";
import type { AIMessage } from "@langchain/core/messages";

export type CaseInput = { mode: ModeConfig["mode"]; snapshotFrequency: number; turns: number; payloadBytes: number; tmpdir?: string };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

function fileSize(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function sequentialIds(): () => string {
  let n = 0;
  return () => `b-${String(++n).padStart(7, "0")}`;
}

export async function runCase(input: CaseInput): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(input.tmpdir ?? os.tmpdir(), "ckpt-bench-"));
  const file = path.join(dir, "workspace.db");
  const config: ModeConfig = { mode: input.mode, snapshotFrequency: input.snapshotFrequency };
  try {
    const handle = openSqliteDb({ file });
    const { saver, store } = openSqliteCheckpoints({ db: handle, mode: config.mode });
    const accessor = createCheckpointAccessor({ saver, config });
    const deps = {
      accessor,
      clock: systemClock,
      newId: sequentialIds(),
      locks: createThreadLocks(),
      toolPayloadBytes: input.payloadBytes,
      admit: admissionHook({ store }),
    };
    const { threadId } = await createThread(deps);
    const latencies: number[] = [];
    const writeStart = performance.now();
    for (let i = 0; i < input.turns; i += 1) {
      const t0 = performance.now();
      const result = await startRun(deps, { threadId, content: `turn ${i}: please look at the file` });
      latencies.push(performance.now() - t0);
      if (result.status !== "success") throw new Error(`run ${i} ended ${result.status}`);
    }
    const writeTotalMs = performance.now() - writeStart;
    await accessor.getState(threadId);
    const w0 = performance.now();
    const warm = await accessor.getState(threadId);
    const warmReadMs = performance.now() - w0;
    const checkpoints = handle.sqlite
      .prepare("select count(*) n, coalesce(sum(length(checkpoint) + length(metadata)), 0) b from checkpoints where thread_id = ?")
      .get(threadId) as { n: number; b: number };
    const writes = handle.sqlite
      .prepare("select count(*) n, coalesce(sum(length(value)), 0) b from writes where thread_id = ?")
      .get(threadId) as { n: number; b: number };
    // Sizes while the saver is still open: the online footprint.
    const sizes = { dbBytes: fileSize(file), walBytes: fileSize(`${file}-wal`), shmBytes: fileSize(`${file}-shm`) };
    const dbWalBytes = (sizes.dbBytes ?? 0) + (sizes.walBytes ?? 0);
    // Branch from the first answer (lineage walk + one materialization), timed
    // after the sizes so the new thread's rows are not counted.
    const firstAnswer = warm!.values.messages.find((m) => m.getType() === "ai" && !(m as AIMessage).tool_calls?.length);
    const b0 = performance.now();
    if (firstAnswer) await branch(deps, threadId, String(firstAnswer.id));
    const branchMs = performance.now() - b0;
    // Cold read: a new connection, saver, accessor and compiled graph (its
    // clock starts after the branch, which is timed on its own above).
    const c0 = performance.now();
    const coldSqlite = wrapSqliteDb({ sqlite: new Database(file), file });
    const { saver: coldSaver } = openSqliteCheckpoints({ db: coldSqlite, mode: config.mode });
    const cold = await createCheckpointAccessor({ saver: coldSaver, config }).getState(threadId);
    const coldReadMs = performance.now() - c0;
    const digest = digestValues(warm!.values);
    if (digestValues(cold!.values) !== digest) throw new Error("cold read differs from warm read");
    coldSqlite.closeNow();
    handle.closeNow();
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      ok: true,
      messages: warm!.values.messages.length,
      writeTotalMs: round(writeTotalMs),
      writeP50Ms: round(percentile(sorted, 50)),
      writeP95Ms: round(percentile(sorted, 95)),
      writeP99Ms: round(percentile(sorted, 99)),
      warmReadMs: round(warmReadMs),
      coldReadMs: round(coldReadMs),
      branchMs: round(branchMs),
      admission: true,
      checkpointRows: checkpoints.n,
      checkpointBytes: checkpoints.b,
      writeRows: writes.n,
      writeBytes: writes.b,
      ...sizes,
      dbWalBytes,
      peakRssKb: process.resourceUsage().maxRSS,
      digest,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? "{}") as CaseInput;
  const started = performance.now();
  try {
    const result = await runCase(input);
    // pid: each case runs in a fresh process of its own (CCM-19), and the row says which.
    process.stdout.write(`${JSON.stringify({ ...result, caseElapsedMs: round(performance.now() - started), pid: process.pid })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })}\n`);
    process.exitCode = 1;
  }
}

void main();
