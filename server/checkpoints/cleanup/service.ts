import "server-only";
// Composition for the checkpoint maintenance routes.
import type { CheckpointOperationKind, CheckpointStorageStatus, OperationAccepted } from "@/lib/checkpoints/api";
import type { OpenRuntime, Runtime } from "@/server/runtime";
import { modeFromEnv, type ModeConfig } from "../mode";
import { AppError } from "@/server/errors";
import { activeCheckpointOperation, startOperation, type OperationDeps } from "./operations";
import { cleanupReadiness } from "./readiness";
import { readResult } from "./result-record";

/** Rows of the largest threads the storage status lists. */
const LARGEST_THREADS = 10;

/** What the runtime runs with: the frozen mode, else the configured one (read-only here). */
function displayedMode(rt: Runtime, env: NodeJS.ProcessEnv): ModeConfig | null {
  const frozen = rt.checkpoints.modeFreeze.frozen;
  if (frozen) return frozen;
  try {
    return modeFromEnv(env);
  } catch {
    return null;
  }
}

export function unsupportedCheckpointStorage(rt: Runtime): CheckpointStorageStatus {
  const mode = displayedMode(rt, process.env);
  return {
    supported: false,
    mode: mode?.mode ?? null,
    snapshotFrequency: mode?.snapshotFrequency ?? null,
    tables: null,
    largestThreads: [],
    operation: null,
    lastResult: null,
    lastResultMalformed: false,
  };
}

export async function getCheckpointStorage(rt: OpenRuntime, env: NodeJS.ProcessEnv = process.env): Promise<CheckpointStorageStatus> {
  const store = rt.stores.checkpoints;
  const mode = displayedMode(rt, env);
  const stored = await readResult(store);
  const tables = await store.tableUsage();
  const operation = activeCheckpointOperation(rt.checkpoints.jobs);
  return {
    supported: true,
    mode: mode?.mode ?? null,
    snapshotFrequency: mode?.snapshotFrequency ?? null,
    tables,
    largestThreads: await store.largestThreads(LARGEST_THREADS),
    operation,
    lastResult: stored.result,
    lastResultMalformed: stored.malformed,
    cleanup: cleanupReadiness({ result: stored.result, tables, active: operation }),
  };
}

export function operationDeps(rt: OpenRuntime): OperationDeps {
  return {
    store: rt.stores.checkpoints,
    clock: rt.clock,
    log: rt.log,
    guard: rt.guard,
    bus: rt.bus,
    locks: rt.checkpoints.locks,
    cache: rt.checkpoints.runHistory,
    handleTtlDays: rt.checkpoints.handleTtlDays,
    jobs: rt.checkpoints.jobs,
    wait: (ms) => new Promise((resolve) => rt.timers.setTimeout(resolve, ms)),
    newId: rt.ids,
  };
}

/**
 * Queues an analysis or cleanup. A cleanup that names the analysis it relied
 * on (the console's confirmation) starts only while that analysis still
 * describes the current state: 409 analysis_outdated otherwise.
 */
export async function startCheckpointOperation(rt: OpenRuntime, kind: CheckpointOperationKind, options: { analysisId?: string } = {}): Promise<OperationAccepted> {
  if (kind === "cleanup" && options.analysisId !== undefined) {
    const store = rt.stores.checkpoints;
    const readiness = cleanupReadiness({ result: (await readResult(store)).result, tables: await store.tableUsage(), active: activeCheckpointOperation(rt.checkpoints.jobs) });
    if (readiness.reason === "running") throw new AppError("operation_active", "A checkpoint operation is already queued or running");
    if (readiness.analysisId !== options.analysisId) {
      throw new AppError("analysis_outdated", `Analysis ${options.analysisId} no longer describes the stored checkpoints (${readiness.reason}); analyze again`);
    }
  }
  return startOperation(operationDeps(rt), kind);
}
