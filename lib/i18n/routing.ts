import { defineRouting } from "next-intl/routing";

export const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** BCP 47 tags for the html lang attribute: CJK fonts pick glyphs by region from it. */
export const LANGUAGE_TAGS: Record<Locale, string> = {
  en: "en",
  "pt-pt": "pt-PT",
  "zh-cn": "zh-CN",
  "zh-hk": "zh-HK",
  "zh-tw": "zh-TW",
};

export const routing = defineRouting({
  locales: LOCALES,
  defaultLocale: DEFAULT_LOCALE,
  localePrefix: "always",
});

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}
