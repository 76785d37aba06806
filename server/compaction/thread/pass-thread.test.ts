import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { openDatabase, type DbHandle } from "@/server/db/client";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { GEN_NOW_MS, generateWorkspace } from "@/scripts/gen-large-workspace";
import { runCleanupPass, type BatchCommitted } from "../cleanup/pass";
import { NOW_MS, armPolicy, countMarkedRows, seedOldTask, storeOf, readRecordSync } from "../test-support";
import type { Logger } from "@/server/log";
import { backgroundNice } from "./background-priority";
import { runPassInThread, type ThreadSliceCount } from "./run-in-thread";
import { threadTestBed } from "./thread-test-support";

const bed = threadTestBed("ws-thread-");

function record(sqlite = bed.t.sqlite) {
  const read = readRecordSync(sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}

/** A slice on the thread with the main thread's manual clock standing still, as the inline tests' clock does. */
function inThread(options: Partial<Parameters<typeof runPassInThread>[0]> & { file?: string; nowMs?: number; maxBatchRows?: number }) {
  const { file, nowMs, maxBatchRows, ...rest } = options;
  return runPassInThread({
    thread: { bundlePath: bed.bundlePath },
    slices: { started: 0, running: 0 },
    database: { engine: "sqlite", file: file ?? bed.t.file },
    clock: manualClock(nowMs ?? NOW_MS),
    operationId: "run-1",
    limits: { fixedClock: true, yieldMs: 0, maxBatchRows },
    ...rest,
  });
}

const dump = (sqlite: DbHandle["sqlite"]) => sqlite.prepare("select rowid, * from messages order by rowid").all();

describe("cleanup slice on a worker thread", () => {
  it("changes exactly the rows the inline pass changes, to the same bytes, on two copies of one workspace", async () => {
    const inlineFile = path.join(bed.t.dir, "inline.db");
    generateWorkspace({ file: inlineFile, messages: 3_000, seed: 11, hugeRows: 0 });
    const inline = openDatabase({ file: inlineFile });
    await armPolicy(inline.sqlite, { value: 3, unit: "months" }, GEN_NOW_MS);
    inline.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const threadFile = path.join(bed.t.dir, "thread.db");
    fs.copyFileSync(inlineFile, threadFile);
    const before = dump(inline.sqlite);
    try {
      const inlineResult = await runCleanupPass({ store: storeOf(inline.sqlite), clock: manualClock(GEN_NOW_MS), operationId: "run-1", wait: async () => {}, yieldMs: 0 });
      const threadResult = await inThread({ file: threadFile, nowMs: GEN_NOW_MS });
      const threaded = openDatabase({ file: threadFile, migrate: false });
      try {
        expect(threadResult).toEqual(inlineResult);
        expect(inlineResult.state).toBe("succeeded");
        const after = dump(inline.sqlite);
        const changed = after.filter((row, i) => JSON.stringify(row) !== JSON.stringify(before[i]));
        expect(changed.length).toBeGreaterThan(500);
        expect(changed.length).toBe(inlineResult.operation?.changedMessages);
        expect(dump(threaded.sqlite)).toEqual(after);
        expect(record(threaded.sqlite)).toEqual(record(inline.sqlite));
      } finally {
        threaded.sqlite.close();
      }
    } finally {
      inline.sqlite.close();
    }
  });

  it("checkpoints the slice's commits on the thread's checkpoint thread before it reports done (no fallback to inline checkpoints)", async () => {
    await armPolicy(bed.t.sqlite);
    seedOldTask(bed.t.sqlite, "a", 30);
    const warnings: unknown[] = [];
    const debug: unknown[] = [];
    const log = { debug: (...args: unknown[]) => void debug.push(args), info() {}, error() {}, warn: (...args: unknown[]) => void warnings.push(args) } as unknown as Logger;
    const result = await inThread({ maxBatchRows: 10, log });
    expect(result).toMatchObject({ state: "succeeded" });
    expect(countMarkedRows(bed.t.sqlite)).toBe(30);
    expect(warnings).toEqual([]);
    // The slice ran below the request thread's priority (Linux: a thread's own nice value).
    expect(debug).toContainEqual([{ nice: process.platform === "linux" ? backgroundNice(os.getPriority()) : null }, "pass thread priority"]);
    // The test's own connection keeps the WAL: every frame since its last restart is in the database file.
    const shm = fs.readFileSync(`${bed.t.file}-shm`);
    const frames = shm.readUInt32LE(16);
    expect(frames).toBeGreaterThan(0);
    expect(shm.readUInt32LE(96)).toBe(frames);
  });

  it("[TPR-SCH-05] a backup lease taken on the main thread defers the thread's next batch: the slice pauses with its cursor saved", async () => {
    await armPolicy(bed.t.sqlite);
    seedOldTask(bed.t.sqlite, "a", 30);
    const guard = createMaintenanceGuard();
    type Taken = Promise<{ release(): void } | null>;
    let backupTaken: Taken | null = null;
    const batches: BatchCommitted[] = [];
    const first = await inThread({
      maxBatchRows: 10,
      admitBatch: () => guard.tryAcquire({ owner: "cleanup:run-1", kind: "compaction" }),
      onBatch: (event) => {
        batches.push(event);
        // The backup starts right after the first commit: the guard is free
        // then, and the in-process guard reserves it before answering.
        backupTaken ??= guard.tryAcquire({ owner: "backup-1", kind: "backup" });
      },
    });
    // Assigned in the callback, which TypeScript does not follow.
    const backup = await (backupTaken as Taken | null);
    expect(backup).not.toBeNull();
    expect(first).toMatchObject({ state: "running", reason: "work_budget", continuation: true });
    expect(batches.map((b) => b.rows)).toEqual([10]);
    expect(countMarkedRows(bed.t.sqlite)).toBe(10);
    expect(record().runtime.cursor).not.toBeNull();
    expect(await guard.holder()).toMatchObject({ owner: "backup-1" });

    // Once the backup ends, the next slice resumes from the cursor.
    backup!.release();
    const second = await inThread({ maxBatchRows: 10, admitBatch: () => guard.tryAcquire({ owner: "cleanup:run-1", kind: "compaction" }) });
    expect(second).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(second.operation?.changedMessages).toBe(30);
    expect(countMarkedRows(bed.t.sqlite)).toBe(30);
    expect(await guard.holder()).toBeNull();
  });

  it("[TPR-SCH-07] a cancel set on the main thread ends the thread's pass cancelled at a batch boundary, keeping committed batches", async () => {
    await armPolicy(bed.t.sqlite);
    seedOldTask(bed.t.sqlite, "a", 30);
    let cancelled = false;
    const guard = createMaintenanceGuard();
    const result = await inThread({
      maxBatchRows: 10,
      shouldStop: () => cancelled,
      admitBatch: () => guard.tryAcquire({ owner: "cleanup:run-1", kind: "compaction" }),
      onBatch: () => {
        cancelled = true;
      },
    });
    expect(result).toMatchObject({ state: "cancelled", reason: "cancelled", continuation: false });
    expect(result.operation).toMatchObject({ state: "cancelled", changedMessages: 10 });
    expect(countMarkedRows(bed.t.sqlite)).toBe(10);
    expect(record().runtime.latestRun).toMatchObject({ id: "run-1", state: "cancelled", changedMessages: 10 });
    expect(await guard.holder()).toBeNull();
  });

  it("[TPR-SCH-07] a shutdown set on the main thread pauses the thread's slice with its cursor saved; the next slice resumes there", async () => {
    await armPolicy(bed.t.sqlite);
    seedOldTask(bed.t.sqlite, "a", 30);
    let shuttingDown = false;
    const first = await inThread({
      maxBatchRows: 10,
      shouldPause: () => shuttingDown,
      onBatch: () => {
        shuttingDown = true;
      },
    });
    expect(first).toMatchObject({ state: "running", reason: "work_budget", continuation: true });
    const marked = countMarkedRows(bed.t.sqlite);
    expect(marked).toBeGreaterThanOrEqual(10);
    expect(marked).toBeLessThan(30);
    expect(record().runtime.cursor).not.toBeNull();
    const second = await inThread({ maxBatchRows: 10 });
    expect(second).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(second.operation?.changedMessages).toBe(30);
  });

  it("settles only after the thread has exited, also when a listener on this side fails mid-pass", async () => {
    await armPolicy(bed.t.sqlite);
    seedOldTask(bed.t.sqlite, "a", 30);
    const slices: ThreadSliceCount = { started: 0, running: 0 };
    const done = inThread({
      slices,
      maxBatchRows: 10,
      onBatch: () => {
        throw new Error("listener failed");
      },
    });
    await expect(done).rejects.toThrow("listener failed");
    expect(slices).toEqual({ started: 1, running: 0 });
    // The thread's connection is closed: a writer gets the lock at once.
    const timeout = bed.t.sqlite.pragma("busy_timeout", { simple: true }) as number;
    bed.t.sqlite.pragma("busy_timeout = 0");
    try {
      expect(() => bed.t.sqlite.transaction(() => undefined).immediate()).not.toThrow();
    } finally {
      bed.t.sqlite.pragma(`busy_timeout = ${timeout}`);
    }
  });

  it("a cancel set before any batch stops the walk through the shared flag alone", async () => {
    await armPolicy(bed.t.sqlite);
    seedOldTask(bed.t.sqlite, "a", 30);
    let admissions = 0;
    const result = await inThread({
      shouldStop: () => true,
      admitBatch: () => {
        admissions += 1;
        return { release() {} };
      },
    });
    expect(result).toMatchObject({ state: "cancelled", reason: "cancelled" });
    expect(admissions).toBe(0);
    expect(countMarkedRows(bed.t.sqlite)).toBe(0);
  });

  it("a thread that cannot start or open the database reports itself unavailable (the worker then runs inline)", async () => {
    await expect(inThread({ file: bed.t.dir })).rejects.toMatchObject({ name: "PassThreadUnavailableError" });
    await expect(inThread({ thread: { bundlePath: path.join(bed.t.dir, "no-bundle.cjs") } })).rejects.toMatchObject({ name: "PassThreadUnavailableError" });
  });
});
