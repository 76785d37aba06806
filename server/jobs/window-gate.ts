// A scheduled job's one question to the maintenance window: may this slice
// (a compaction slice, a checkpoint cleanup or thread expiry batch) start or
// continue now? Scheduled passes, continuations and resumed passes wait for
// the window; a manual run the administrator confirmed outside the window
// keeps running to its end. Shared by every scheduled maintenance job.
import "server-only";
import type { Clock } from "@/server/clock";
import { AppError } from "@/server/errors";
import { deferToWindow, isInsideWindow, type MaintenanceWindow } from "@/server/jobs/maintenance-window";

export type WindowGate = {
  /** False outside the window for an operation without an override. */
  mayRun(operationId: string): boolean;
  /** When a slice of `operationId` (null: a new scheduled pass) may start, at or after `atMs`. */
  startAt(operationId: string | null, atMs: number): number;
  /** Refuses a manual run outside the window unless confirmed. */
  checkManualRun(confirmedOutsideWindow: boolean): void;
  override(operationId: string): void;
};

/** Throws outside_maintenance_window when `window` is closed at `nowMs` and the administrator did not confirm. */
export function refuseOutsideWindow(options: { window: MaintenanceWindow | null; nowMs: number; confirmed: boolean }): void {
  const { window, nowMs, confirmed } = options;
  if (!window || confirmed || isInsideWindow(window, nowMs)) return;
  throw new AppError("outside_maintenance_window", "This is outside the maintenance window; confirm to run anyway.");
}

export function createWindowGate(options: { window: MaintenanceWindow | null; clock: Clock }): WindowGate {
  const { window, clock } = options;
  // Operation ids are unique, so an override never outlives its run.
  const overridden = new Set<string>();
  return {
    mayRun: (operationId) => !window || overridden.has(operationId) || isInsideWindow(window, clock.now()),
    startAt: (operationId, atMs) => (operationId !== null && overridden.has(operationId) ? atMs : deferToWindow(window, atMs)),
    checkManualRun: (confirmed) => refuseOutsideWindow({ window, nowMs: clock.now(), confirmed }),
    override: (operationId) => void overridden.add(operationId),
  };
}
