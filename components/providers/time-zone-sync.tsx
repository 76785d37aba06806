"use client";
// Tells the server the browser's time zone (a cookie) and re-renders once
// when it differs from the zone this page was rendered in, so every later
// first paint already matches the browser.
import { useTimeZone } from "next-intl";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { TIME_ZONE_COOKIE, validTimeZone } from "@/lib/i18n/time-zone";

export function TimeZoneSync() {
  const rendered = useTimeZone();
  const router = useRouter();
  useEffect(() => {
    const browser = validTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone);
    if (!browser || browser === rendered) return;
    document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(browser)}; path=/; max-age=31536000; samesite=lax`;
    router.refresh();
  }, [rendered, router]);
  return null;
}
