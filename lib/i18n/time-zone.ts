// The viewer's time zone travels in a cookie so the server's first paint
// formats times in the same zone as the browser (next-intl hands the
// request's zone to the client provider). Until the browser has said which
// zone it is in, both sides use UTC and name it.
export const TIME_ZONE_COOKIE = "tz";
export const DEFAULT_TIME_ZONE = "UTC";

/** A zone Intl knows, or null (a forged or stale cookie is ignored). */
export function validTimeZone(value: string | undefined | null): string | null {
  if (!value || value.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(value)) return null;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return value;
  } catch {
    return null;
  }
}
