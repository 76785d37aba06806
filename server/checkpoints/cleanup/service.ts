import "server-only";
// Composition for the checkpoint maintenance routes.
import type { CheckpointOperationKind, CheckpointStorageStatus, OperationAccepted } from "@/lib/checkpoints/api";
import type { OpenRuntime, Runtime } from "@/server/runtime";
import { modeFromEnv, type ModeConfig } from "../mode";
import { activeCheckpointOperation, startOperation, type OperationDeps } from "./operations";
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

export function getCheckpointStorage(rt: OpenRuntime, env: NodeJS.ProcessEnv = process.env): CheckpointStorageStatus {
  const store = rt.stores.checkpoints;
  const mode = displayedMode(rt, env);
  const stored = readResult(store);
  return {
    supported: true,
    mode: mode?.mode ?? null,
    snapshotFrequency: mode?.snapshotFrequency ?? null,
    tables: store.tableUsage(),
    largestThreads: store.largestThreads(LARGEST_THREADS),
    operation: activeCheckpointOperation(rt.checkpoints.jobs),
    lastResult: stored.result,
    lastResultMalformed: stored.malformed,
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
    epochs: rt.checkpoints.epochs,
    jobs: rt.checkpoints.jobs,
    wait: (ms) => new Promise((resolve) => rt.timers.setTimeout(resolve, ms)),
    newId: rt.ids,
  };
}

export function startCheckpointOperation(rt: OpenRuntime, kind: CheckpointOperationKind): OperationAccepted {
  return startOperation(operationDeps(rt), kind);
}
