// Dates and rates of the storage history, in the viewer's locale and zone.
import { isLocale, LANGUAGE_TAGS } from "@/lib/i18n/routing";
import { formatBytes } from "@/lib/i18n/format";

const tag = (locale: string) => (isLocale(locale) ? LANGUAGE_TAGS[locale] : locale);

/** A calendar day ("12 Mar 2026"). */
export function formatDay(ms: number, locale: string, timeZone: string): string {
  return new Intl.DateTimeFormat(tag(locale), { year: "numeric", month: "short", day: "numeric", timeZone }).format(new Date(ms));
}

/** A short axis label ("12 Mar"). */
export function formatAxisDay(ms: number, locale: string, timeZone: string): string {
  return new Intl.DateTimeFormat(tag(locale), { month: "short", day: "numeric", timeZone }).format(new Date(ms));
}

/** A byte change with its sign ("+1.2 GB", "−300 MB"); zero is unsigned. */
export function formatSignedBytes(bytes: number, locale: string): string {
  if (bytes === 0) return formatBytes(0, locale);
  return `${bytes > 0 ? "+" : "\u2212"}${formatBytes(Math.abs(bytes), locale)}`;
}
