// Timing rules of the compaction worker (spec: Scheduling). Pure functions of
// instants so the worker and its tests agree on one definition.

export const DAY_MS = 24 * 60 * 60 * 1000;
export const MINUTE_MS = 60 * 1000;

/** A complete cleanup pass is next due 24 hours after it finished. */
export function nextDueAfterCompletePass(finishedAtMs: number): number {
  return finishedAtMs + DAY_MS;
}

/**
 * When the scheduled pass should start. An overdue pass (due before the
 * process became ready, or never scheduled) starts one minute after readiness:
 * never a catch-up burst of missed days.
 */
export function scheduledStartAt(options: { nextDueAtMs: number | null; readyAtMs: number; nowMs: number }): number {
  const { nextDueAtMs, readyAtMs, nowMs } = options;
  const earliest = Math.max(readyAtMs + MINUTE_MS, nowMs);
  if (nextDueAtMs === null) return earliest;
  return Math.max(nextDueAtMs, earliest);
}

/** A continuation of an unfinished pass waits at least one minute. */
export function continuationAt(options: { finishedSliceAtMs: number; requestedDelayMs?: number }): number {
  return options.finishedSliceAtMs + Math.max(MINUTE_MS, options.requestedDelayMs ?? 0);
}
