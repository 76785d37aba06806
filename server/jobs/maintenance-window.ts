// The optional daily maintenance window: scheduled cleanup starts and
// continues only inside it. Start and end are wall-clock times in a named
// IANA zone, so the window follows daylight saving time: on a day whose
// start time does not exist (clocks jump over it) the window opens at the
// first instant inside it; on a day that repeats an hour it opens at the
// first occurrence. Pure functions of instants, like schedule.ts.

export type MaintenanceWindow = {
  /** Minutes after local midnight, 0..1439. */
  startMinute: number;
  endMinute: number;
  timeZone: string;
};

export type WindowState = {
  open: boolean;
  /** The next instant the window opens (after the current opening when open). */
  nextStartMs: number;
  /** When the current opening ends; null when closed. */
  endsAtMs: number | null;
};

const MINUTE_MS = 60_000;
/** Coarse scan step; a window shorter than this could be missed on a DST day. */
const STEP_MINUTES = 5;
const MIN_LENGTH_MINUTES = 15;
const DAY_MINUTES = 24 * 60;
const TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

// Immutable formatters, one per time zone: shared by every runtime without effect.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return timeZone.includes("/") || timeZone === "UTC";
  } catch {
    return false;
  }
}

/** Minutes after local midnight of `ms` in the window's zone. */
function localMinute(window: MaintenanceWindow, ms: number): number {
  let hour = 0;
  let minute = 0;
  for (const part of formatterFor(window.timeZone).formatToParts(new Date(ms))) {
    if (part.type === "hour") hour = Number(part.value);
    if (part.type === "minute") minute = Number(part.value);
  }
  return hour * 60 + minute;
}

export function windowLengthMinutes(window: Pick<MaintenanceWindow, "startMinute" | "endMinute">): number {
  return (window.endMinute - window.startMinute + DAY_MINUTES) % DAY_MINUTES;
}

/**
 * "01:00-05:00 Europe/Lisbon" (end may be past midnight: "22:00-04:00 UTC").
 * Returns null for an empty value, an error string for a malformed one.
 */
export function parseMaintenanceWindow(text: string | undefined): MaintenanceWindow | null | { error: string } {
  const value = text?.trim();
  if (!value) return null;
  const match = /^(\S+)-(\S+)\s+(\S+)$/.exec(value);
  const start = match ? TIME.exec(match[1]!) : null;
  const end = match ? TIME.exec(match[2]!) : null;
  if (!match || !start || !end) return { error: "expected HH:MM-HH:MM Zone/Name, e.g. 01:00-05:00 Europe/Lisbon" };
  if (!isTimeZone(match[3]!)) return { error: `unknown time zone ${match[3]}` };
  const window = { startMinute: Number(start[1]) * 60 + Number(start[2]), endMinute: Number(end[1]) * 60 + Number(end[2]), timeZone: match[3]! };
  if (windowLengthMinutes(window) < MIN_LENGTH_MINUTES) return { error: `the window must last at least ${MIN_LENGTH_MINUTES} minutes` };
  return window;
}

export function formatWindowTime(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
}

export function isInsideWindow(window: MaintenanceWindow, ms: number): boolean {
  const local = localMinute(window, ms);
  const { startMinute, endMinute } = window;
  return startMinute < endMinute ? local >= startMinute && local < endMinute : local >= startMinute || local < endMinute;
}

/** The first whole minute at or after `fromMs` whose insideness equals `inside` (searching up to three days). */
function firstMinuteWhere(window: MaintenanceWindow, fromMs: number, inside: boolean): number {
  let previous = Math.ceil(fromMs / MINUTE_MS) * MINUTE_MS;
  if (isInsideWindow(window, previous) === inside) return previous;
  for (let step = 1; step <= (3 * DAY_MINUTES) / STEP_MINUTES; step += 1) {
    const candidate = previous + STEP_MINUTES * MINUTE_MS;
    if (isInsideWindow(window, candidate) === inside) {
      // The change lies in (previous, candidate]: find its minute.
      for (let ms = previous + MINUTE_MS; ms < candidate; ms += MINUTE_MS) if (isInsideWindow(window, ms) === inside) return ms;
      return candidate;
    }
    previous = candidate;
  }
  throw new Error("maintenance window never changes state");
}

export function windowState(window: MaintenanceWindow, nowMs: number): WindowState {
  if (!isInsideWindow(window, nowMs)) return { open: false, nextStartMs: firstMinuteWhere(window, nowMs, true), endsAtMs: null };
  const endsAtMs = firstMinuteWhere(window, nowMs, false);
  return { open: true, nextStartMs: firstMinuteWhere(window, endsAtMs, true), endsAtMs };
}

/** `atMs` when the window (if any) is open then, else the window's next start. */
export function deferToWindow(window: MaintenanceWindow | null, atMs: number): number {
  if (!window || isInsideWindow(window, atMs)) return atMs;
  return firstMinuteWhere(window, atMs, true);
}
