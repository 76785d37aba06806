// The process's retention service: the one worker bound to the runtime's
// database, and the verbs the API routes call.
import "server-only";
import { randomIds } from "@/server/ids";
import { eventBus } from "@/server/events/bus";
import { maintenanceGuard } from "@/server/maintenance/guard";
import { registerQuiescer } from "@/server/maintenance/quiescence";
import type { Runtime } from "@/server/runtime";
import type { AnalyzeBody, CancelBody, PutPolicyBody, RunBody } from "@/lib/compaction/api";
import { savePolicy } from "./policy/policy-update";
import { readRetentionStatus, type RetentionStatus } from "./status";
import { createRetentionWorker, type RetentionWorker } from "./worker/worker";

const workerKey = Symbol.for("workspace-retention.retention-worker");
type GlobalWithWorker = typeof globalThis & { [workerKey]?: RetentionWorker };

/** The process worker, created and started on first use (idempotent). */
export function retentionWorker(rt: Runtime): RetentionWorker {
  const g = globalThis as GlobalWithWorker;
  let worker = g[workerKey];
  if (!worker) {
    if (!rt.handle) throw new Error("retention worker needs a SQLite database");
    const created = createRetentionWorker({
      sqlite: rt.handle.sqlite,
      dbFile: rt.handle.file,
      clock: rt.clock,
      timers: rt.timers,
      log: rt.log.child({ component: "retention-worker" }),
      newId: randomIds,
      bus: eventBus(),
      guard: maintenanceGuard(),
    });
    worker = created;
    g[workerKey] = created;
    // Restore and reset stop the worker before they replace the database;
    // the next request after the restart creates a fresh one.
    registerQuiescer("retention-worker", {
      stop: async () => {
        await created.stop();
        if (g[workerKey] === created) delete g[workerKey];
      },
      start: () => {},
    });
  }
  worker.start();
  return worker;
}

export function getRetentionStatus(rt: Runtime): RetentionStatus {
  return readRetentionStatus(rt.handle!.sqlite, rt.clock.now());
}

export function putRetentionPolicy(rt: Runtime, body: PutPolicyBody): RetentionStatus {
  const worker = retentionWorker(rt);
  const { effects } = savePolicy(rt.handle!.sqlite, {
    draft: body.policy,
    expectedRevision: body.expectedRevision,
    preparation: body.preparation,
    nowMs: rt.clock.now(),
    newId: randomIds,
  });
  worker.policySaved(effects);
  return getRetentionStatus(rt);
}

export function analyzeRetention(rt: Runtime, body: AnalyzeBody): { operationId: string } {
  return retentionWorker(rt).requestAnalysis(body.age);
}

export function runRetention(rt: Runtime, body: RunBody): { operationId: string } {
  return retentionWorker(rt).requestRun(body.expectedRevision);
}

export function cancelRetention(rt: Runtime, body: CancelBody): RetentionStatus {
  retentionWorker(rt).cancel(body.operationId);
  return getRetentionStatus(rt);
}
