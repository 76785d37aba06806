// Timestamp text for the demo: mostly UTC "Z", some with local offsets the
// way real agents on laptops write them, and deliberately invalid ones.
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** RFC 3339 text for an instant written in a given UTC offset (minutes). */
export function formatAt(ms: number, offsetMinutes = 0, fraction = true): string {
  const local = new Date(ms + offsetMinutes * MINUTE);
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const frac = fraction ? `.${pad(local.getUTCMilliseconds(), 3)}` : "";
  if (offsetMinutes === 0) return `${date}T${time}${frac}Z`;
  const sign = offsetMinutes < 0 ? "-" : "+";
  return `${date}T${time}${frac}${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
}

/** Offsets seen on developer machines, in minutes. */
export const OFFSETS = [-480, -420, -300, -240, 0, 60, 120, 330, 480, 540, 600, 780, -720, 840] as const;
