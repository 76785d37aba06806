// The one UTC cutoff of a pass. A task whose latest activity is at or after
// the cutoff is retained. The caller captures `nowMs` once from its Clock
// and computes the cutoff once per pass, so every task in the pass is judged
// against the same instant.
import "server-only";
import { fixedPeriodDays, type Period } from "@/lib/time/period";

const DAY_MS = 86_400_000;

function daysInUtcMonth(year: number, monthIndex: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

function subtractMonths(nowMs: number, months: number): number {
  const now = new Date(nowMs);
  const total = now.getUTCFullYear() * 12 + now.getUTCMonth() - months;
  const year = Math.floor(total / 12);
  const monthIndex = total - year * 12;
  // Clamp: 31 March minus one month is the last day of February.
  const day = Math.min(now.getUTCDate(), daysInUtcMonth(year, monthIndex));
  const date = new Date(0);
  // setUTCFullYear keeps years 0-99 literal, unlike Date.UTC.
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds());
  return date.getTime();
}

/** Cutoff instant (UTC epoch ms): days and weeks are exact (a week is 7 days), months are calendar months with the day clamped. */
export function computeCutoff({ nowMs, age }: { nowMs: number; age: Period }): number {
  if (!Number.isFinite(nowMs)) throw new RangeError("nowMs must be a finite instant");
  const days = fixedPeriodDays(age);
  return days !== null ? nowMs - days * DAY_MS : subtractMonths(nowMs, age.value);
}

/**
 * True when activity protects the task. Equal to the cutoff is retained; an
 * unknown or invalid instant (null) is retained too: we never delete on a
 * timestamp we could not read.
 */
export function isRetained(activityMs: number | null | undefined, cutoffMs: number): boolean {
  if (activityMs === null || activityMs === undefined || !Number.isFinite(activityMs)) return true;
  return activityMs >= cutoffMs;
}
