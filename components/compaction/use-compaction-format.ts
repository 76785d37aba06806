"use client";
// Locale-aware formatting for the card: dates, bytes, counts, ages, and the
// localized names of skip reasons, tool kinds and error codes (with a
// generic fallback for codes this build does not know yet).
import { useLocale, useNow, useTimeZone, useTranslations } from "next-intl";
import { useMemo } from "react";
import { formatBytes, formatCount, formatDateTime, formatDuration, formatRelative } from "@/lib/i18n/format";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import type { CompactionAge } from "@/lib/compaction/policy";
import { SKIP_REASONS } from "@/lib/compaction/skip-reasons";

export { SKIP_REASONS };

export const TOOL_KINDS = ["shell_exec", "read_file", "modify_file", "code_search", "http_request", "generic"] as const;

export const OPERATION_ERROR_CODES = [
  "cancelled",
  "work_budget",
  "eligibility_budget",
  "backup_failed",
  "settings_malformed",
  "disabled",
  "policy_changed",
  "not_approved",
  "operation_replaced",
  "schema_changed",
  "statement_deadline",
  "shutdown",
  "backup_missing",
  "backup_changed",
  "backup_interrupted",
  "preparation_cancelled",
] as const;

function known<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

export function useCompactionFormat() {
  const locale = useLocale();
  const t = useTranslations("compaction");
  const tw = useTranslations("maintenanceWindow");
  const timeZone = useTimeZone();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  return useMemo(
    () => ({
      locale,
      bytes: (value: number) => formatBytes(value, locale),
      count: (value: number) => formatCount(value, locale),
      percent: (fraction: number) => new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).format(fraction),
      /** An RFC 3339 instant in the locale's words, or null when absent or unreadable. */
      time: (text: string | null | undefined) => {
        const ms = parseRfc3339(text ?? null);
        return ms === null ? null : formatDateTime(ms, locale, timeZone);
      },
      /** As `time`, with seconds: two instants of one scan must read apart. */
      timeSeconds: (text: string | null | undefined) => {
        const ms = parseRfc3339(text ?? null);
        return ms === null ? null : formatDateTime(ms, locale, timeZone, { seconds: true });
      },
      /** How long from one instant to the other ("2 sec"), or null when either is unreadable. */
      duration: (from: string | null | undefined, to: string | null | undefined) => {
        const start = parseRfc3339(from ?? null);
        const end = parseRfc3339(to ?? null);
        return start === null || end === null ? null : end - start < 1000 ? t("details.underASecond") : formatDuration(end - start, locale);
      },
      /** As `time`, with how far away it is ("in 3 hr."): for upcoming times. */
      timeWithRelative: (text: string | null | undefined) => {
        const ms = parseRfc3339(text ?? null);
        return ms === null ? null : tw("withRelative", { time: formatDateTime(ms, locale, timeZone), relative: formatRelative(ms, now, locale) });
      },
      age: (age: CompactionAge) => t(`age.amount.${age.unit}`, { count: age.value }),
      skipReason: (reason: string) => (known(SKIP_REASONS, reason) ? t(`reasons.${reason}`) : t("reasons.other", { reason })),
      /** What the administrator can do about a skip (or that nothing is needed). */
      skipHint: (reason: string) => (known(SKIP_REASONS, reason) ? t(`reasonHints.${reason}`) : t("reasonHints.other")),
      toolKind: (kind: string) => (known(TOOL_KINDS, kind) ? t(`kinds.${kind}`) : t("kinds.other", { kind })),
      operationError: (code: string) => (known(OPERATION_ERROR_CODES, code) ? t(`operationErrors.${code}`) : t("operationErrors.other", { code })),
    }),
    [locale, t, tw, timeZone, now],
  );
}

export type CompactionFormat = ReturnType<typeof useCompactionFormat>;
