import { LANGUAGE_TAGS, isLocale } from "./routing";

const BYTE_UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

function tagFor(locale: string): string {
  return isLocale(locale) ? LANGUAGE_TAGS[locale] : locale;
}

/**
 * The one unit system of every size the product shows (cards, thread view,
 * CLI, the log viewer): decimal SI steps, 1 kB = 1000 B and 1 MB = 1000 kB,
 * the units Intl names "kilobyte" and "megabyte", so a label never says MB
 * over a count of MiB. The log's bytes=21,077,029 reads 21 MB.
 */
export const BYTE_STEP = 1000;

/** Bytes in decimal steps (1 kB = 1000 B) with the locale's digits and unit names. */
export function formatBytes(bytes: number, locale: string): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  // Round first, so 999,999 B reads "1 MB", never "1,000 kB".
  while (unit < BYTE_UNITS.length - 1 && roundedForUnit(value) >= BYTE_STEP) {
    value /= BYTE_STEP;
    unit += 1;
  }
  // Intl spells single bytes out ("0 byte", "1 byte"); "B" reads the same in every locale.
  if (unit === 0) return `${new Intl.NumberFormat(tagFor(locale)).format(Math.round(value))} B`;
  return new Intl.NumberFormat(tagFor(locale), {
    style: "unit",
    unit: BYTE_UNITS[unit],
    unitDisplay: "short",
    maximumFractionDigits: value < 10 ? 1 : 0,
  }).format(value);
}

/** The value as formatBytes would print it in its current unit (one decimal under 10). */
function roundedForUnit(value: number): number {
  return value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
}

/** The exact count beside the rounded size, for places that must show both ("21 MB (21,077,029 bytes)"). */
export function formatBytesExact(bytes: number, locale: string): string {
  return new Intl.NumberFormat(tagFor(locale)).format(Math.max(0, bytes));
}

/**
 * An instant in the locale's words and the given zone (the viewer's; UTC
 * until the browser has said), with the zone named so a time is never
 * ambiguous.
 */
export function formatDateTime(ms: number, locale: string, timeZone = "UTC", options: InstantOptions = {}): string {
  return formatInstant(ms, locale, timeZone, options);
}

/** `seconds`: for log lines and scan windows, where two instants in one minute must differ. */
export type InstantOptions = { seconds?: boolean };

export function formatCount(value: number, locale: string): string {
  return new Intl.NumberFormat(tagFor(locale)).format(value);
}

/**
 * An instant in the viewer's time zone with the zone named ("1 Dec 2026,
 * 05:10 GMT+1"): people read local times, and the zone says which.
 */
export function formatInstant(ms: number, locale: string, timeZone: string, options: InstantOptions = {}): string {
  return new Intl.DateTimeFormat(tagFor(locale), {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    ...(options.seconds ? { second: "2-digit" as const } : {}),
    timeZoneName: "short",
    timeZone,
  }).format(new Date(ms));
}

const DURATION_UNITS: readonly [Intl.NumberFormatOptions["unit"] & string, number][] = [
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1000],
];

/**
 * A span of time in the locale's short units, largest two that apply ("1 hr,
 * 5 min", "2 sec", "1分钟5秒"); under a second, "less than a second" is the
 * caller's to say, this returns the milliseconds.
 */
export function formatDuration(ms: number, locale: string): string {
  const tag = tagFor(locale);
  const total = Math.max(0, Math.round(ms));
  if (total < 1000) return new Intl.NumberFormat(tag, { style: "unit", unit: "millisecond", unitDisplay: "short" }).format(total);
  let rest = Math.round(total / 1000) * 1000;
  const amounts = DURATION_UNITS.map(([unit, size]) => {
    const amount = Math.floor(rest / size);
    rest -= amount * size;
    return { unit, amount };
  });
  const first = amounts.findIndex((a) => a.amount > 0);
  const parts = amounts
    .slice(first, first + 2)
    .filter((a) => a.amount > 0)
    .map((a) => new Intl.NumberFormat(tag, { style: "unit", unit: a.unit, unitDisplay: "short" }).format(a.amount));
  return new Intl.ListFormat(tag, { style: "narrow", type: "unit" }).format(parts);
}

const RELATIVE_STEPS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 1000],
  ["minute", 60 * 1000],
  ["hour", 60 * 60 * 1000],
  ["day", 24 * 60 * 60 * 1000],
];

/** How far `ms` is from `nowMs` in its largest whole unit ("in 3 hr.", "5 min. ago"), shown beside an absolute time. */
export function formatRelative(ms: number, nowMs: number, locale: string): string {
  const delta = ms - nowMs;
  let [unit, size] = RELATIVE_STEPS[0]!;
  for (const step of RELATIVE_STEPS) if (Math.abs(delta) >= step[1]) [unit, size] = step;
  return new Intl.RelativeTimeFormat(tagFor(locale), { numeric: "auto", style: "short" }).format(Math.round(delta / size), unit);
}

/**
 * Sentences of one paragraph joined as the language writes them: Chinese
 * ends a sentence with a full-width 。 and starts the next without a space
 * (a space there reads as a stray gap); the others put one space between.
 * Empty parts (a sentence that does not apply) are left out.
 */
export function joinSentences(parts: readonly (string | false | null | undefined)[], locale: string): string {
  const separator = locale.startsWith("zh") ? "" : " ";
  return parts.filter((part): part is string => typeof part === "string" && part.length > 0).join(separator);
}
