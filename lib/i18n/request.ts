import { hasLocale } from "next-intl";
import { cookies } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { DEFAULT_TIME_ZONE, TIME_ZONE_COOKIE, validTimeZone } from "./time-zone";
import { loadMessages } from "./load-messages";
import { routing } from "./routing";

export default getRequestConfig(async ({ requestLocale }) => {
  const requested = await requestLocale;
  const locale = hasLocale(routing.locales, requested) ? requested : routing.defaultLocale;
  // The browser's zone (components/providers/time-zone-sync.tsx sets the cookie).
  const timeZone = validTimeZone((await cookies()).get(TIME_ZONE_COOKIE)?.value) ?? DEFAULT_TIME_ZONE;
  return { locale, messages: loadMessages(locale), timeZone };
});
