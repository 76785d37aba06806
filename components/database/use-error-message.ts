"use client";

import { useTranslations } from "next-intl";
import { errorCodeOf } from "./error-summary";

const KNOWN = [
  "maintenance_busy",
  "forbidden",
  "unauthenticated",
  "network_error",
  "not_found",
  "invalid_request",
  "backup_unusable",
  "backup_failed",
  "unsupported_engine",
  "cross_origin",
] as const;
const isKnown = (code: string): code is (typeof KNOWN)[number] => (KNOWN as readonly string[]).includes(code);

/** A localized sentence for an API error code; unknown codes get the generic one. */
export function useErrorMessage(): (error: unknown) => string {
  const t = useTranslations("databaseCards.errors");
  return (error) => {
    const { code } = errorCodeOf(error);
    return isKnown(code) ? t(code) : t("generic");
  };
}
