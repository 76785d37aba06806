// The analysis and preparation jobs the worker enqueues (cleanup is
// cleanup-job.ts): each records its outcome and publishes live progress.
import "server-only";
import type { BackupProgress } from "@/server/maintenance/backups/create";
import type { JobContext } from "@/server/jobs/serial-queue";
import { runAnalysis } from "../analysis/analysis";
import { waitWith } from "../cleanup/pass";
import { finishAnalysisRecord, markActiveRunning, saveActiveProgress } from "../policy/operations";
import type { OperationState, CompactionAge } from "../policy/policy-schema";
import { guardedJob, type JobHost } from "./job-host";
import { runPreparation } from "./preparation";

const PROGRESS_SAVE_EVERY_MS = 1000;

export function createAnalysisJob(host: JobHost): (operationId: string, age: CompactionAge) => void {
  const { store, clock, log } = host.deps;
  return (operationId, age) => {
    host.queue.enqueue({
      id: operationId,
      kind: "analysis",
      priority: "manual",
      run: guardedJob(host, operationId, "analysis", async (job: JobContext) => {
        if (!(await markActiveRunning(store, { operationId, nowMs: clock.now() }))) return;
        let lastSave = clock.now();
        const result = await runAnalysis({
          store,
          operationId,
          age,
          clock,
          shouldStop: job.shouldStop,
          onProgress: async (operation) => {
            host.publish(operation);
            if (clock.now() - lastSave >= PROGRESS_SAVE_EVERY_MS) {
              lastSave = clock.now();
              await saveActiveProgress(store, { operation, nowMs: lastSave });
            }
          },
        });
        const operation = job.stopReason() === "cancelled" ? { ...result.operation, state: "cancelled" as const } : result.operation;
        await finishAnalysisRecord(store, { operation, nowMs: clock.now() });
        host.publish(operation);
        log.info({ operationId, state: operation.state, scanned: operation.scannedRows, bytes: operation.payloadBytes }, "analysis finished");
      }),
    });
  };
}

export function createPreparationJob(host: JobHost): (operationId: string) => void {
  const { deps } = host;
  // Preparation is not in the slot; its live events carry identity and state.
  const publishPreparation = (operationId: string, state: OperationState, backupBytes?: BackupProgress) =>
    deps.bus.publish({
      type: "operation",
      operationId,
      kind: "preparation",
      state,
      progress: {
        scannedRows: 0,
        eligibleMessages: 0,
        changedMessages: 0,
        payloadBytes: 0,
        fraction: backupBytes?.totalBytes ? Math.min(1, backupBytes.doneBytes / backupBytes.totalBytes) : null,
        ...(backupBytes ? { backupBytes } : {}),
      },
    });
  return (operationId) => {
    const abort = new AbortController();
    host.aborts.set(operationId, abort);
    host.queue.enqueue({
      id: operationId,
      kind: "preparation",
      priority: "manual",
      run: async (job: JobContext) => {
        try {
          const outcome = await runPreparation(
            {
              store: deps.store,
              maintenance: deps.maintenance,
              dbFile: deps.dbFile,
              clock: deps.clock,
              guard: deps.guard,
              log: deps.log,
              wait: waitWith(deps.timers),
              shouldStop: job.shouldStop,
              signal: abort.signal,
              createBackupFn: deps.createBackupFn,
              onRunning: () => publishPreparation(operationId, "running"),
              onProgress: (progress) => publishPreparation(operationId, "running", progress),
            },
            operationId,
          );
          publishPreparation(operationId, outcome === "armed" ? "succeeded" : outcome === "failed" ? "failed" : "cancelled");
          if (outcome === "armed") await host.startInitialCleanup();
        } finally {
          host.aborts.delete(operationId);
        }
      },
    });
  };
}
