import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { sequentialIds } from "@/server/ids";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { listBackups } from "@/server/maintenance/backups/catalog";
import type { SystemEvent } from "@/lib/events/api";
import { savePolicy } from "../policy/policy-update";
import { readCompactionStatus } from "../status";
import { NOW_MS, countMarkedRows, seedOldTask, storeOf } from "../test-support";
import type { CompactionWorkerDeps } from "./worker";
import { makeTestWorker, readRecordOf } from "./worker-test-support";
import { DAY_MS, MINUTE_MS } from "@/server/jobs/schedule";

let t: TestDb;
let events: SystemEvent[];
beforeEach(async () => {
  t = createTestDb();
  events = [];
});
afterEach(async () => t.close());

function makeWorker(overrides: Partial<CompactionWorkerDeps> = {}) {
  return makeTestWorker({ t, events, overrides });
}

function record() {
  return readRecordOf(t);
}

const age = { value: 1, unit: "weeks" as const };

/** Enables with a backup whose completion waits for `release()`; resolves once the backup runs. */
async function startGatedPreparation() {
  seedOldTask(t.sqlite, "task-a", 2);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { worker } = makeWorker({
    createBackupFn: async () => {
      await gate;
      return { name: "workspace-2026-01-01T00-00-00Z-0000abcd.db", sizeBytes: 1, completedAt: "2026-01-01T00:00:00Z", sha256: "0".repeat(64) };
    },
  });
  await worker.start();
  const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("p") });
  await worker.policySaved(saved.effects);
  await new Promise((r) => setTimeout(r, 0));
  return { worker, release };
}

describe("compaction worker", () => {
  it("[TPR-API-03] [TPR-AN-01] analysis runs in the worker, records its result and writes no message", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    const before = t.sqlite.prepare("select metadata from messages order by rowid").all();
    const { worker } = makeWorker();
    await worker.start();
    const { operationId } = await worker.requestAnalysis(age);
    await expect(worker.requestAnalysis(age)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
    await worker.idle();
    const latest = record().runtime.latestAnalysis!;
    expect(latest).toMatchObject({ id: operationId, kind: "analysis", state: "succeeded", eligibleMessages: 3, fingerprint: "weeks:1" });
    expect(latest.payloadBytes).toBeGreaterThan(0);
    expect(record().runtime.activeOperation).toBeNull();
    expect(t.sqlite.prepare("select metadata from messages order by rowid").all()).toEqual(before);
    expect(events.some((e) => e.type === "operation" && e.operationId === operationId && e.state === "succeeded")).toBe(true);
    await worker.stop();
  });

  it("[TPR-API-04] [TPR-PREP-10] skip arms cleanup and the initial pass compacts eligible rows", async () => {
    seedOldTask(t.sqlite, "task-a", 4);
    const { worker, parked } = makeWorker();
    await worker.start();
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(saved.effects);
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(4);
    const latest = record().runtime.latestRun!;
    expect(latest).toMatchObject({ kind: "cleanup", state: "succeeded", changedMessages: 4 });
    // [TPR-SCH-03] the next pass is due 24 h after the complete one, persisted.
    expect(record().runtime.nextDueAt).toBe(new Date(Date.parse(latest.finishedAt!) + DAY_MS).toISOString());
    expect(parked).toHaveLength(1);
    const changed = events.filter((e) => e.type === "messages_changed");
    expect(changed.flatMap((e) => (e.type === "messages_changed" ? e.messageIds : []))).toHaveLength(4);
    await worker.stop();
  });

  it("[TPR-API-08] run is refused with 409 until the revision is approved, and on a stale revision", async () => {
    const { worker } = makeWorker();
    await worker.start();
    await expect(worker.requestRun(0)).rejects.toThrow(expect.objectContaining({ code: "cleanup_not_approved" }));
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("p") });
    await expect(worker.requestRun(1)).rejects.toThrow(expect.objectContaining({ code: "cleanup_not_approved" }));
    await expect(worker.requestRun(0)).rejects.toThrow(expect.objectContaining({ code: "conflict" }));
    expect(saved.record.runtime.preparation.state).toBe("pending");
    await worker.stop();
  });

  it("[TPR-PREP-03] [TPR-PREP-04] backup preparation publishes a verified backup, then arms and runs cleanup", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    const { worker } = makeWorker();
    await worker.start();
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("p") });
    expect((await readCompactionStatus(storeOf(t.sqlite), NOW_MS)).armed).toBe(false);
    await worker.policySaved(saved.effects);
    await worker.idle();
    const prep = record().runtime.preparation;
    expect(prep.state).toBe("ready");
    expect(prep.receipt).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const backups = await listBackups({ dbFile: t.file });
    expect(backups.map((b) => b.name)).toContain((prep.receipt as { name: string }).name);
    expect(record().runtime.approvedRevision).toBe(1);
    expect(countMarkedRows(t.sqlite)).toBe(2);
    await worker.stop();
  });

  it("[TPR-PREP-07] [TPR-PREP-08] a late backup completion after cancel cannot arm cleanup (identity rechecked in the writer transaction)", async () => {
    const { worker, release } = await startGatedPreparation();
    expect(record().runtime.preparation.state).toBe("running");
    await worker.cancel("p-1");
    release();
    await worker.idle();
    expect(record().runtime.preparation).toMatchObject({ state: "failed", errorCode: "preparation_cancelled" });
    expect(record().runtime.approvedRevision).toBeNull();
    expect(countMarkedRows(t.sqlite)).toBe(0);
    await worker.stop();
  });

  it("[TPR-PREP-07] [TPR-PREP-08] a late backup completion after disable cannot arm cleanup (revision rechecked in the writer transaction)", async () => {
    const { worker, release } = await startGatedPreparation();
    const off = await savePolicy(storeOf(t.sqlite), { draft: { enabled: false, age }, expectedRevision: 1, nowMs: NOW_MS, newId: sequentialIds("q") });
    await worker.policySaved(off.effects);
    release();
    await worker.idle();
    expect(record().policy.enabled).toBe(false);
    expect(record().runtime.approvedRevision).toBeNull();
    expect(countMarkedRows(t.sqlite)).toBe(0);
    await worker.stop();
  });

  it("[TPR-API-05] a running preparation is the active operation (kind preparation), on the event stream, and cancellable by its id", async () => {
    const { worker, release } = await startGatedPreparation();
    const status = await readCompactionStatus(storeOf(t.sqlite), NOW_MS);
    expect(status.activeOperation).toMatchObject({ id: "p-1", kind: "preparation", state: "running", startedAt: expect.any(String) });
    expect(events).toContainEqual(expect.objectContaining({ type: "operation", operationId: "p-1", kind: "preparation", state: "running" }));
    await worker.cancel("p-1");
    release();
    await worker.idle();
    expect((await readCompactionStatus(storeOf(t.sqlite), NOW_MS)).activeOperation).toBeNull();
    expect(events).toContainEqual(expect.objectContaining({ type: "operation", operationId: "p-1", kind: "preparation", state: "cancelled" }));
    await worker.stop();
  });

  it("[TPR-PREP-06] backup failure stays blocked until an explicit retry creates a new preparation", async () => {
    seedOldTask(t.sqlite, "task-a", 1);
    let fail = true;
    const real = (await import("@/server/maintenance/backups/create")).createBackup;
    const { worker: w2 } = makeWorker({
      createBackupFn: async (options) => {
        if (fail) throw Object.assign(new Error("disk full"), { code: "ENOSPC" });
        return real(options);
      },
    });
    await w2.start();
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("p") });
    await w2.policySaved(saved.effects);
    await w2.idle();
    expect(record().runtime.preparation).toMatchObject({ state: "failed", errorCode: "backup_failed" });
    expect((await readCompactionStatus(storeOf(t.sqlite), NOW_MS)).armed).toBe(false);
    fail = false;
    const retry = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 1, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("retry") });
    expect(retry.effects.startPreparation).toBe("retry-1");
    await w2.policySaved(retry.effects);
    await w2.idle();
    expect(record().runtime.preparation).toMatchObject({ state: "ready", operationId: "retry-1" });
    expect(countMarkedRows(t.sqlite)).toBe(1);
    await w2.stop();
  });

  it("[TPR-SCH-04] an overdue pass starts one minute after readiness, once", async () => {
    seedOldTask(t.sqlite, "task-a", 1);
    const first = makeWorker();
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    // Due three days ago: a restart must not replay the missed days.
    const rec = record();
    rec.runtime.nextDueAt = new Date(NOW_MS - 3 * DAY_MS).toISOString();
    t.sqlite.prepare("update settings set value = ? where key = 'tool_payload_retention'").run(JSON.stringify(rec));
    await first.worker.start();
    expect(first.worker.nextTimerAt()).toBe(NOW_MS + MINUTE_MS);
    expect(first.parked).toHaveLength(1);
    first.fireNext();
    await first.worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(1);
    expect(first.parked).toHaveLength(1); // only the next daily pass
    await first.worker.stop();
  });

  it("[TPR-BAT-03] [TPR-PREP-10] a restart resumes an approved pass from its stored cursor", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    seedOldTask(t.sqlite, "task-b", 3);
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    // A pass that was running when the process died: active slot + no cursor yet.
    const rec = record();
    rec.runtime.activeOperation = { id: "op-crashed", kind: "cleanup", state: "running", startedAt: new Date(NOW_MS).toISOString(), finishedAt: null, cutoff: null, scannedRows: 0, eligibleTasks: 0, eligibleMessages: 0, changedMessages: 0, payloadBytes: 0, skipped: {}, stale: false, revision: 1 };
    t.sqlite.prepare("update settings set value = ? where key = 'tool_payload_retention'").run(JSON.stringify(rec));
    const { worker, fireNext } = makeWorker();
    await worker.start();
    expect(worker.nextTimerAt()).toBe(NOW_MS + MINUTE_MS);
    fireNext();
    await worker.idle();
    expect(record().runtime.latestRun).toMatchObject({ id: "op-crashed", state: "succeeded", changedMessages: 6 });
    expect(countMarkedRows(t.sqlite)).toBe(6);
    await worker.stop();
  });

  it("[TPR-OBS-02] an analysis interrupted by a crash is recorded as interrupted, not success", async () => {
    const rec = record();
    rec.runtime.activeOperation = { id: "op-a", kind: "analysis", state: "running", startedAt: new Date(NOW_MS).toISOString(), finishedAt: null, cutoff: null, scannedRows: 5, eligibleTasks: 1, eligibleMessages: 2, changedMessages: 0, payloadBytes: 10, skipped: {}, stale: false };
    t.sqlite.prepare("insert into settings (key, value, updated_at_ms) values ('tool_payload_retention', ?, 0)").run(JSON.stringify(rec));
    const { worker } = makeWorker();
    await worker.start();
    expect(record().runtime.latestAnalysis).toMatchObject({ id: "op-a", state: "partial", errorCode: "interrupted" });
    expect(record().runtime.activeOperation).toBeNull();
    await worker.stop();
  });

  it("[TPR-API-05] cancel checks identity", async () => {
    const { worker } = makeWorker();
    await worker.start();
    await expect(worker.cancel("nope")).rejects.toThrow(expect.objectContaining({ code: "conflict" }));
    await worker.stop();
  });
});

describe("compaction worker and the maintenance guard", () => {
  it("[TPR-SCH-05] cleanup batches defer while another maintenance operation owns the guard", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    const guard = createMaintenanceGuard();
    const { worker, parked, fireNext } = makeWorker({ guard });
    await worker.start();
    const vacuum = (await guard.tryAcquire({ owner: "test-vacuum", kind: "vacuum" }))!;
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(saved.effects);
    await worker.idle();
    // The slice ended with its cursor saved and a continuation at least a minute away.
    expect(countMarkedRows(t.sqlite)).toBe(0);
    expect(record().runtime.activeOperation).toMatchObject({ kind: "cleanup", state: "running" });
    expect(parked).toHaveLength(1);
    expect(worker.nextTimerAt()).toBeGreaterThanOrEqual(NOW_MS + MINUTE_MS);
    vacuum.release();
    fireNext();
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(3);
    // Deferral is not a failure.
    expect(record().runtime.latestRun).toMatchObject({ state: "succeeded", errorCode: null });
    await worker.stop();
  });

  it("[TPR-SCH-01] a manual analysis runs between slices of a waiting 3-slice cleanup, which then resumes; a duplicate is 409", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    const guard = createMaintenanceGuard();
    const { worker, parked, fireNext } = makeWorker({ guard });
    await worker.start();
    const held = (await guard.tryAcquire({ owner: "test-vacuum", kind: "vacuum" }))!;
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(saved.effects);
    await worker.idle();
    // Slice 1 deferred: the pass waits for its continuation.
    const pass = record().runtime.activeOperation!;
    expect(pass).toMatchObject({ kind: "cleanup", state: "running" });
    expect(parked).toHaveLength(1);

    const { operationId } = await worker.requestAnalysis(age);
    expect(record().runtime.activeOperation).toMatchObject({ id: operationId, kind: "analysis" });
    await expect(worker.requestAnalysis(age)).rejects.toThrow(expect.objectContaining({ code: "operation_active" }));
    await worker.idle();
    expect(record().runtime.latestAnalysis).toMatchObject({ id: operationId, state: "succeeded", eligibleMessages: 3 });
    // The cleanup is back in the slot with its continuation.
    expect(record().runtime.activeOperation).toMatchObject({ id: pass.id, kind: "cleanup" });
    expect(parked).toHaveLength(1);

    fireNext(); // slice 2: still deferred
    await worker.idle();
    expect(record().runtime.activeOperation?.id).toBe(pass.id);
    held.release();
    fireNext(); // slice 3 completes the pass
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(3);
    expect(record().runtime.latestRun).toMatchObject({ id: pass.id, state: "succeeded", changedMessages: 3 });
    await worker.stop();
  });

  it("[TPR-SCH-07] shutdown stops a pass at the next batch boundary and keeps its cursor for the restart", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    seedOldTask(t.sqlite, "task-b", 2);
    const guard = createMaintenanceGuard();
    const { worker } = makeWorker({ guard });
    await worker.start();
    const held = (await guard.tryAcquire({ owner: "test", kind: "backup" }))!;
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(saved.effects);
    for (let i = 0; i < 5; i += 1) await new Promise((r) => setTimeout(r, 0));
    const stopping = worker.stop();
    held.release();
    await stopping;
    const active = record().runtime.activeOperation;
    expect(active).toMatchObject({ kind: "cleanup", state: "running" });
    expect(record().runtime.cursor).not.toBeNull();
    expect(record().runtime.latestRun).toBeNull();
  });
});

describe("compaction worker never leaves the active slot held", () => {
  it("[TPR-API-05] cancelling a pass that waits for its continuation ends it with its counts", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    const guard = createMaintenanceGuard();
    const { worker, parked } = makeWorker({ guard });
    await worker.start();
    const held = (await guard.tryAcquire({ owner: "test", kind: "vacuum" }))!;
    const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(saved.effects);
    await worker.idle();
    held.release();
    const active = record().runtime.activeOperation!;
    expect(parked).toHaveLength(1);
    await worker.cancel(active.id);
    expect(record().runtime.activeOperation).toBeNull();
    expect(record().runtime.latestRun).toMatchObject({ id: active.id, state: "cancelled" });
    // The slot is free again: a new analysis is accepted.
    expect((await worker.requestAnalysis(age)).operationId).toEqual(expect.any(String));
    await worker.idle();
    await worker.stop();
  });

  it("a job that throws records a failure and frees the slot", async () => {
    seedOldTask(t.sqlite, "task-a", 1);
    const { worker } = makeWorker();
    await worker.start();
    // A malformed stored row makes nothing throw; a closed statement source does:
    // drop the messages table under the analysis to force an exception.
    const { operationId } = await worker.requestAnalysis(age);
    t.sqlite.exec("alter table messages rename to messages_gone");
    await worker.idle();
    t.sqlite.exec("alter table messages_gone rename to messages");
    expect(record().runtime.activeOperation).toBeNull();
    expect(record().runtime.latestAnalysis).toMatchObject({ id: operationId, state: "failed", errorCode: "job_failed" });
    await worker.stop();
  });

  it("[TPR-PREP-02] an approval saved while an old pass holds the slot starts its initial pass when that one ends", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    const guard = createMaintenanceGuard();
    const { worker, fireNext } = makeWorker({ guard });
    await worker.start();
    const held = (await guard.tryAcquire({ owner: "test", kind: "vacuum" }))!;
    const first = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: { value: 2, unit: "weeks" } }, expectedRevision: 0, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("p") });
    await worker.policySaved(first.effects);
    await worker.idle();
    const oldPass = record().runtime.activeOperation!.id;
    held.release();
    // Shortening the period with skip stops the old pass and re-approves.
    const second = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age }, expectedRevision: 1, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("q") });
    expect(second.effects.stopOperations).toEqual([oldPass]);
    await worker.policySaved(second.effects);
    await worker.idle();
    fireNext();
    await worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(2);
    expect(record().runtime.latestRun).toMatchObject({ state: "succeeded", revision: 2 });
    await worker.stop();
  });
});
