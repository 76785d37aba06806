// What the job bodies (jobs.ts, cleanup-job.ts) share with the worker that
// enqueues them: its dependencies, queue and window gate, and the verbs that
// move the worker's own state (continuations, the schedule, the slot).
import "server-only";
import { isAppError } from "@/server/errors";
import type { VerificationCache } from "@/server/maintenance/backups/verify";
import type { JobContext, SerialQueue } from "@/server/jobs/serial-queue";
import type { CompactionOperation } from "../policy/policy-schema";
import type { WindowGate } from "@/server/jobs/window-gate";
import type { CompactionWorkerDeps } from "./worker-types";

export type JobHost = {
  deps: CompactionWorkerDeps;
  queue: SerialQueue;
  gate: WindowGate;
  cache: VerificationCache;
  /** Preparations in flight, aborted by cancel and stop. */
  aborts: Map<string, AbortController>;
  isRunning(): boolean;
  initialCleanupPending(): boolean;
  publish(operation: CompactionOperation): void;
  /** Ends whatever the slot holds for `operationId` without its job. */
  endOrphan(operationId: string, state: "failed" | "cancelled", code: string): Promise<void>;
  setContinuation(operationId: string, requestedAt: number): Promise<void>;
  scheduleNextPass(): Promise<void>;
  startInitialCleanup(): Promise<void>;
  /** What follows an analysis or cleanup job: a stepped-aside pass returns, or the schedule is armed. */
  afterCleanupJob(kind: "analysis" | "cleanup"): Promise<void>;
};

/**
 * A job that throws must never leave the slot held: the daily schedule
 * would stop until a restart.
 */
export function guardedJob(host: JobHost, operationId: string, kind: "analysis" | "cleanup", body: (job: JobContext) => Promise<void>) {
  const { log } = host.deps;
  return async (job: JobContext) => {
    try {
      await body(job);
    } catch (error) {
      log.error({ operationId, kind, code: errorCode(error) }, "compaction job failed");
      try {
        await host.endOrphan(operationId, "failed", "job_failed");
      } catch (cleanupError) {
        log.error({ operationId, code: errorCode(cleanupError) }, "could not record the failed job");
      }
    } finally {
      try {
        await host.afterCleanupJob(kind);
      } catch (error) {
        log.error({ operationId, code: errorCode(error) }, "could not arm what follows the job");
      }
    }
  };
}

export function errorCode(error: unknown): string {
  if (isAppError(error)) return error.code;
  return error instanceof Error ? error.name : "unknown";
}
