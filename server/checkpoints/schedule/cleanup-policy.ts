// The PUT verb of automatic checkpoint cleanup: on or off, compare-and-set
// on the revision. No preparation: the daily run is the same exhaustive
// engine as Clean up, which only ever removes what the retention contract
// allows (never a checkpoint on a thread's path or a valid run handle).
// Disabling drops the next due time and stops a run waiting between slices.
import "server-only";
import type { CleanupScheduleRecord } from "@/lib/checkpoints/maintenance-api";
import { AppError } from "@/server/errors";
import { defaultCleanupRecord, editRecord } from "./records";
import type { CheckpointScheduleStore } from "./store";

export async function saveCleanupPolicy(
  store: CheckpointScheduleStore,
  options: { enabled: boolean; expectedRevision: number; nowMs: number },
): Promise<{ record: CleanupScheduleRecord; before: CleanupScheduleRecord["policy"] | null; stopOperation: string | null }> {
  const { enabled, expectedRevision, nowMs } = options;
  let before: CleanupScheduleRecord["policy"] | null = null;
  let stopOperation: string | null = null;
  const apply = (current: CleanupScheduleRecord): CleanupScheduleRecord => {
    if (current.policy.revision !== expectedRevision) {
      throw new AppError("conflict", "The automatic cleanup setting changed since it was read; reload and try again.", { currentRevision: current.policy.revision });
    }
    if (current.policy.enabled === enabled) return current;
    const next = structuredClone(current);
    next.policy = { enabled, revision: current.policy.revision + 1 };
    if (!enabled) {
      next.runtime.nextDueAt = null;
      stopOperation = current.runtime.activeOperation?.id ?? null;
      next.runtime.activeOperation = null;
    }
    return next;
  };
  const record = await editRecord(
    store,
    "checkpoint_cleanup",
    nowMs,
    (current) => {
      before = structuredClone(current.policy);
      const next = apply(current);
      return { next: next === current ? null : next, result: next };
    },
    (storedRevision) => {
      if (storedRevision !== expectedRevision) throw new AppError("conflict", "The automatic cleanup setting changed since it was read; reload and try again.");
      const next = defaultCleanupRecord();
      next.policy = { enabled, revision: storedRevision + 1 };
      return { next, result: next };
    },
  );
  return { record: record!, before, stopOperation };
}
