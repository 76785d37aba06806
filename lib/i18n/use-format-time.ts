"use client";
import { useLocale, useTimeZone } from "next-intl";
import { useMemo } from "react";
import { formatInstant, formatRelative } from "./format";
import { DEFAULT_TIME_ZONE } from "./time-zone";

/**
 * Times as people read them: in the viewer's zone with the zone named, and
 * how far away they are ("in 3 hr.") for times where that helps.
 */
export function useFormatTime() {
  const locale = useLocale();
  const timeZone = useTimeZone() ?? DEFAULT_TIME_ZONE;
  return useMemo(
    () => ({
      timeZone,
      absolute: (ms: number) => formatInstant(ms, locale, timeZone),
      relative: (ms: number, nowMs: number) => formatRelative(ms, nowMs, locale),
    }),
    [locale, timeZone],
  );
}
