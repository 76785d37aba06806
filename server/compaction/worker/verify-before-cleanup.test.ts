// Worker-level tests of verifyBeforeCleanup: a real backup preparation, then
// the receipt check the cleanup runs before its first mutation.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { backupsDirFor } from "@/server/db/url";
import { createEventBus } from "@/server/events/bus";
import { sequentialIds } from "@/server/ids";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { createBackup } from "@/server/maintenance/backups/create";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";
import type { MaintenanceStore } from "@/server/maintenance/store";
import { savePolicy } from "../policy/policy-update";
import { readCompactionStatus } from "../status";
import { NOW_MS, countMarkedRows, seedOldTask, storeOf, readRecordSync } from "../test-support";
import { createCompactionWorker, type CompactionWorkerDeps } from "./worker";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb();
});
afterEach(() => t.close());

const age = { value: 1, unit: "weeks" as const };

type Hooks = {
  /** Runs on the backup file right after preparation published it. */
  afterBackup?: (file: string) => void;
  /** Runs inside the cleanup's full verification (integrity check of the backup); false fails the check. */
  duringVerification?: () => boolean | Promise<boolean>;
};

/** A maintenance store that counts (and can hook) the verification of the prepared backup. */
function countingMaintenance(hooks: Hooks) {
  const real = createSqliteMaintenanceStore(t.db);
  const state = { prepared: false, verifications: 0 };
  const maintenance: MaintenanceStore = {
    ...real,
    async verifyFile(file) {
      if (state.prepared) {
        state.verifications += 1;
        if ((await hooks.duringVerification?.()) === false) return false;
      }
      return real.verifyFile(file);
    },
  };
  return { maintenance, state };
}

function makeWorker(hooks: Hooks = {}, shared?: ReturnType<typeof countingMaintenance>) {
  const counting = shared ?? countingMaintenance(hooks);
  const deps: CompactionWorkerDeps = {
    store: storeOf(t.sqlite),
    maintenance: counting.maintenance,
    dbFile: t.file,
    clock: manualClock(NOW_MS),
    timers: { setTimeout: (fn, ms) => (ms <= 1000 ? setTimeout(fn, 0) : { parked: true }), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
    log: createLogger({ level: "silent" }),
    newId: sequentialIds("op"),
    bus: createEventBus(),
    guard: createMaintenanceGuard(),
    pass: { yieldMs: 0 },
    createBackupFn: async (options) => {
      const receipt = await createBackup(options);
      hooks.afterBackup?.(path.join(backupsDirFor(t.file), receipt.name));
      counting.state.prepared = true;
      return receipt;
    },
  };
  return { worker: createCompactionWorker(deps), counting };
}

function record() {
  const read = readRecordSync(t.sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}

async function enableWithBackup(worker: ReturnType<typeof makeWorker>["worker"], enabledAge: typeof age = age) {
  await worker.start();
  const saved = await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: enabledAge }, expectedRevision: 0, preparation: "backup", nowMs: NOW_MS, newId: sequentialIds("p") });
  await worker.policySaved(saved.effects);
  await worker.idle();
}

describe("verifyBeforeCleanup in the worker", () => {
  it("[TPR-PREP-04] a backup deleted after preparation blocks the first mutation and status says why", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    const { worker } = makeWorker({ afterBackup: (file) => fs.rmSync(file) });
    await enableWithBackup(worker);
    expect(countMarkedRows(t.sqlite)).toBe(0);
    const status = await readCompactionStatus(storeOf(t.sqlite), NOW_MS);
    expect(status).toMatchObject({ armed: false, lastErrorCode: "backup_missing", preparation: { state: "failed", errorCode: "backup_missing" } });
    expect(status.latestRun).toMatchObject({ state: "failed", errorCode: "backup_missing", changedMessages: 0 });
    await worker.stop();
  });

  it("[TPR-PREP-04] a backup tampered in place (same size) blocks the first mutation", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    const { worker } = makeWorker({
      afterBackup: (file) => {
        const fd = fs.openSync(file, "r+");
        fs.writeSync(fd, Buffer.from([0x42]), 0, 1, 200);
        fs.closeSync(fd);
      },
    });
    await enableWithBackup(worker);
    expect(countMarkedRows(t.sqlite)).toBe(0);
    expect(await readCompactionStatus(storeOf(t.sqlite), NOW_MS)).toMatchObject({ armed: false, preparation: { state: "failed", errorCode: "backup_changed" } });
    await worker.stop();
  });

  it("[TPR-PREP-08] an administrator's save landing during verification is not revoked by the stale check", async () => {
    seedOldTask(t.sqlite, "task-a", 3);
    let saved = false;
    const { worker } = makeWorker({
      duringVerification: async () => {
        if (!saved) {
          saved = true;
          // Shorter period with "skip", committed while the backup is being checked.
          await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 1, preparation: "skip", nowMs: NOW_MS, newId: sequentialIds("q") });
        }
        // The backup does not verify: without compare-and-swap its failure would land on the skip.
        return false;
      },
    });
    await enableWithBackup(worker, { value: 2, unit: "weeks" });
    expect(saved).toBe(true);
    const after = record();
    expect(after.runtime.preparation).toMatchObject({ state: "ready", choice: "skip", errorCode: null });
    expect(after.runtime.approvedRevision).toBe(after.policy.revision);
    expect(after.runtime.lastErrorCode).not.toBe("backup_changed");
    await worker.stop();
  });

  it("[TPR-PREP-05] later passes trust the recorded verification, even after a restart; a backup gone later asks for preparation", async () => {
    seedOldTask(t.sqlite, "task-a", 2);
    const first = makeWorker();
    await enableWithBackup(first.worker);
    expect(countMarkedRows(t.sqlite)).toBe(2);
    expect(first.counting.state.verifications).toBe(1);
    expect(record().runtime.preparation.verifiedAt).toEqual(expect.any(String));
    await first.worker.stop();

    // A new process (empty verification cache) does not re-hash the backup.
    seedOldTask(t.sqlite, "task-b", 2);
    const second = makeWorker();
    second.counting.state.prepared = true;
    await second.worker.start();
    await second.worker.requestRun(1);
    await second.worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(4);
    expect(second.counting.state.verifications).toBe(0);

    // The file is gone: the next pass does not fail silently.
    const receipt = record().runtime.preparation.receipt as { name: string };
    fs.rmSync(path.join(backupsDirFor(t.file), receipt.name));
    seedOldTask(t.sqlite, "task-c", 2);
    await second.worker.requestRun(1);
    await second.worker.idle();
    expect(countMarkedRows(t.sqlite)).toBe(4);
    expect(await readCompactionStatus(storeOf(t.sqlite), NOW_MS)).toMatchObject({
      armed: false,
      lastErrorCode: "backup_missing",
      preparation: { state: "failed", errorCode: "backup_missing" },
    });
    await second.worker.stop();
  });
});
