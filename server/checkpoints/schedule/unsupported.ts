// What the scheduled-maintenance status reads answer when the database
// engine cannot be reached (capability unsupported; mutations answer 501).
import "server-only";
import type { CleanupScheduleStatus, ExpiryStatus } from "@/lib/checkpoints/maintenance-api";
import { defaultCleanupRecord, defaultExpiryRecord } from "./records";

export function unsupportedCleanupSchedule(): CleanupScheduleStatus {
  const { policy } = defaultCleanupRecord();
  return { capability: "unsupported", recordState: "missing", policy, nextDueAt: null, activeOperation: null, latestRun: null, lastErrorCode: null, maintenanceWindow: null };
}

export function unsupportedExpiry(): ExpiryStatus {
  const { policy } = defaultExpiryRecord();
  return {
    capability: "unsupported",
    recordState: "missing",
    policy,
    preparation: { state: "none", choice: null, receipt: null, errorCode: null, operationId: null, backupBytes: null },
    armed: false,
    latestAnalysis: null,
    latestRun: null,
    activeOperation: null,
    nextDueAt: null,
    lastErrorCode: null,
    maintenanceWindow: null,
    expiredThreads: 0,
  };
}
