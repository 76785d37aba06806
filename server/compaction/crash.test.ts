// Fault tests (issue acceptance): SIGKILL the process that runs the worker
// during a cleanup pass and during a backup, restart, and check what the
// database and the backups folder say.
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { openDatabase } from "@/server/db/client";
import { manualClock, type Timers } from "@/server/clock";
import { createEventBus } from "@/server/events/bus";
import { sequentialIds } from "@/server/ids";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { sweepStaleStaging } from "@/server/maintenance/backups/create";
import { reduceToolPayload } from "./reducer/reducer";
import { insertMessage, insertSession, insertTask, insertTurn, shellMetadata, storeOf, readRecordSync } from "./test-support";
import { createCompactionWorker } from "./worker/worker";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("crash-");
});
afterEach(() => t.close());

function seed(tasks: number, perTask: number) {
  const old = "2024-01-01T00:00:00Z";
  for (let i = 0; i < tasks; i += 1) {
    const id = `t${String(i).padStart(3, "0")}`;
    insertTask(t.sqlite, { id, createdAt: old, updatedAt: old });
    insertSession(t.sqlite, { id: `${id}-s`, taskId: id, startedAt: old, updatedAt: old, completedAt: old });
    insertTurn(t.sqlite, { id: `${id}-u`, sessionId: `${id}-s`, startedAt: old, completedAt: old });
    for (let j = 0; j < perTask; j += 1) {
      insertMessage(t.sqlite, { id: `${id}-m${j}`, sessionId: `${id}-s`, turnId: `${id}-u`, createdAt: old, updatedAt: old, metadata: shellMetadata(`${id}-c${j}`, `line ${j}\n`.repeat(800)) });
    }
  }
}

/** Runs the child until `line` appears on its stdout, then SIGKILLs it. */
function runChildUntil(mode: "cleanup" | "backup", line: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/test-support/compaction-child.ts", t.file, mode], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`child never printed ${line}: ${out} ${err}`));
    }, 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (line.test(out)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") resolve(out);
      else reject(new Error(`child exited without being killed: ${out} ${err}`));
    });
  });
}

function immediateTimers(): Timers & { parked: Array<() => void> } {
  const parked: Array<() => void> = [];
  return {
    parked,
    setTimeout: (fn, ms) => (ms <= 1000 ? setTimeout(fn, 0) : parked.push(fn)),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
}

function restartWorker() {
  t.sqlite.close();
  const handle = openDatabase({ file: t.file });
  Object.assign(t, { sqlite: handle.sqlite });
  const timers = immediateTimers();
  const worker = createCompactionWorker({
    store: storeOf(handle.sqlite),
    maintenance: createSqliteMaintenanceStore(wrapSqliteDb(handle, { reader: false })),
    dbFile: t.file,
    clock: manualClock(Date.now()),
    timers,
    log: createLogger({ level: "silent" }),
    newId: sequentialIds("restart"),
    bus: createEventBus(),
    guard: createMaintenanceGuard(),
    pass: { yieldMs: 0 },
  });
  return { worker, timers };
}

function record() {
  const read = readRecordSync(t.sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}

describe("crash safety", () => {
  it("[TPR-TX-03] [TPR-PREP-10] [TPR-BAT-03] SIGKILL during a cleanup pass: no half-written row, counts match markers, the pass resumes", async () => {
    seed(30, 10);
    const originals = new Map((t.sqlite.prepare("select id, metadata from messages").all() as Array<{ id: string; metadata: string }>).map((r) => [r.id, r.metadata]));
    await runChildUntil("cleanup", /batch \d+\n(.|\n)*batch \d+\n/);

    const { worker, timers } = restartWorker();
    const rows = t.sqlite.prepare("select id, metadata from messages").all() as Array<{ id: string; metadata: string }>;
    let marked = 0;
    for (const row of rows) {
      if (row.metadata === originals.get(row.id)) continue;
      // Every changed row is exactly the reducer's output for its original: never half-written.
      marked += 1;
      const marker = JSON.parse(row.metadata).payload_retention;
      const expected = reduceToolPayload({ type: "tool_execute", metadata: originals.get(row.id)!, removedAt: marker.removed_at });
      expect(expected.outcome === "changed" && expected.metadata).toBe(row.metadata);
    }
    expect(marked).toBeGreaterThan(0);
    expect(marked).toBeLessThan(300);
    const active = record().runtime.activeOperation!;
    expect(active).toMatchObject({ kind: "cleanup", changedMessages: marked });
    expect(record().runtime.cursor).not.toBeNull();

    await worker.start();
    expect(timers.parked).toHaveLength(1);
    timers.parked.shift()!();
    await worker.idle();
    const total = (t.sqlite.prepare("select count(*) from messages where metadata like '%\"payload_retention\"%'").pluck().get() as number);
    expect(total).toBe(300);
    expect(record().runtime.latestRun).toMatchObject({ id: active.id, state: "succeeded", changedMessages: 300 });
    await worker.stop();
  }, 90_000);

  it("[TPR-PREP-10] [TPR-PREP-03] SIGKILL during a backup: nothing published, cleanup not armed, staging swept on start", async () => {
    seed(3, 2);
    await runChildUntil("backup", /snapshot-staged\n/);
    const backupsDir = path.join(path.dirname(t.file), "backups");
    const entries = fs.readdirSync(backupsDir);
    expect(entries.filter((name) => name.endsWith(".db"))).toEqual([]);
    expect(entries.some((name) => name.startsWith(".staging-"))).toBe(true);

    const { worker } = restartWorker();
    await sweepStaleStaging({ dbFile: t.file, guard: createMaintenanceGuard() });
    await worker.start();
    await worker.idle();
    expect(fs.readdirSync(backupsDir)).toEqual([]);
    expect(record().runtime.preparation).toMatchObject({ state: "failed", errorCode: "backup_interrupted" });
    expect(record().runtime.approvedRevision).toBeNull();
    expect(t.sqlite.prepare("select count(*) from messages where metadata like '%payload_retention%'").pluck().get()).toBe(0);
    await worker.stop();
  }, 90_000);
});
