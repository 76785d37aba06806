// Strict RFC 3339 date-time parsing. Stored timestamps keep their original
// text; this parser gives the instant used for chronological comparison.
// Text comparison is never used: offsets change lexical order.

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Epoch milliseconds of a valid RFC 3339 timestamp, or null. */
export function parseRfc3339(text: string | null | undefined): number | null {
  if (typeof text !== "string") return null;
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  const zone = m[8]!;
  if (zone !== "Z" && zone !== "z") {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return Date.UTC(year, month - 1, day, hour, minute, second, fraction) - offsetMinutes * 60_000;
}

/** ISO 8601 UTC text for an instant, the form the server writes. */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString();
}
