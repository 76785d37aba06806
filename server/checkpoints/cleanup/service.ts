import "server-only";
// Composition for the checkpoint maintenance routes.
import { randomUUID } from "node:crypto";
import type { CheckpointOperationKind, CheckpointStorageStatus, OperationAccepted } from "@/lib/checkpoints/api";
import { eventBus } from "@/server/events/bus";
import { maintenanceGuard } from "@/server/maintenance/guard";
import type { Runtime } from "@/server/runtime";
import { modeFromEnv, processModeFreeze, type ModeConfig } from "../mode";
import { processThreadLocks } from "../thread-lock";
import { activeCheckpointOperation, startOperation, type OperationDeps } from "./operations";
import { readResult } from "./result-record";
import { processRunHistoryCache } from "./run-history";
import { largestThreads, tableUsage } from "./storage-stats";

/** What the process runs with: the frozen mode, else the configured one (read-only here). */
function displayedMode(env: NodeJS.ProcessEnv): ModeConfig | null {
  const frozen = processModeFreeze().frozen;
  if (frozen) return frozen;
  try {
    return modeFromEnv(env);
  } catch {
    return null;
  }
}

export function unsupportedCheckpointStorage(): CheckpointStorageStatus {
  const mode = displayedMode(process.env);
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

export function getCheckpointStorage(rt: Runtime, env: NodeJS.ProcessEnv = process.env): CheckpointStorageStatus {
  const sqlite = rt.handle!.sqlite;
  const mode = displayedMode(env);
  const stored = readResult(sqlite);
  return {
    supported: true,
    mode: mode?.mode ?? null,
    snapshotFrequency: mode?.snapshotFrequency ?? null,
    tables: tableUsage(sqlite),
    largestThreads: largestThreads(sqlite),
    operation: activeCheckpointOperation(),
    lastResult: stored.result,
    lastResultMalformed: stored.malformed,
  };
}

export function operationDeps(rt: Runtime): OperationDeps {
  return {
    sqlite: rt.handle!.sqlite,
    clock: rt.clock,
    log: rt.log,
    guard: maintenanceGuard(),
    bus: eventBus(),
    locks: processThreadLocks(),
    cache: processRunHistoryCache(),
    wait: (ms) => new Promise((resolve) => rt.timers.setTimeout(resolve, ms)),
    newId: randomUUID,
  };
}

export function startCheckpointOperation(rt: Runtime, kind: CheckpointOperationKind): OperationAccepted {
  return startOperation(operationDeps(rt), kind);
}
