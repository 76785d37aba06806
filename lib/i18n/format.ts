import { LANGUAGE_TAGS, isLocale } from "./routing";

const BYTE_UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

function tagFor(locale: string): string {
  return isLocale(locale) ? LANGUAGE_TAGS[locale] : locale;
}

/** Bytes in binary steps (1 KB = 1024 B) with the locale's digits and unit names. */
export function formatBytes(bytes: number, locale: string): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
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

/**
 * An instant in the locale's words and the given zone (the viewer's; UTC
 * until the browser has said), with the zone named so a time is never
 * ambiguous.
 */
export function formatDateTime(ms: number, locale: string, timeZone = "UTC"): string {
  return formatInstant(ms, locale, timeZone);
}

export function formatCount(value: number, locale: string): string {
  return new Intl.NumberFormat(tagFor(locale)).format(value);
}

/**
 * An instant in the viewer's time zone with the zone named ("1 Dec 2026,
 * 05:10 GMT+1"): people read local times, and the zone says which.
 */
export function formatInstant(ms: number, locale: string, timeZone: string): string {
  return new Intl.DateTimeFormat(tagFor(locale), {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
    timeZone,
  }).format(new Date(ms));
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
