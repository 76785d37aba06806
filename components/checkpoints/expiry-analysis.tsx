"use client";
// What the latest thread expiry analysis counted: the threads, checkpoints,
// writes and bytes a period would delete now, and the threads it keeps by
// reason. Says so when it was run for another period than the draft's.
import { useLocale, useTranslations } from "next-intl";
import type { ExpiryAge, MaintenanceOperation } from "@/lib/checkpoints/maintenance-api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { useReasonText } from "./use-reason-text";
import styles from "./checkpoint-schedule.module.css";

export function sameAge(a: ExpiryAge | null | undefined, b: ExpiryAge | null | undefined): boolean {
  return !!a && !!b && a.value === b.value && a.unit === b.unit;
}

export function useAgeText(): (age: ExpiryAge) => string {
  const t = useTranslations("checkpoints.schedule.expiry.amount");
  return (age) => t(age.unit, { count: age.value });
}

export function ExpiryAnalysis({ analysis, draftAge, analyzing }: { analysis: MaintenanceOperation | null; draftAge: ExpiryAge | null; analyzing: boolean }) {
  const t = useTranslations("checkpoints.schedule.expiry");
  const locale = useLocale();
  const time = useFormatTime();
  const ageText = useAgeText();
  const reason = useReasonText();
  if (analyzing) {
    return (
      <p className={styles.line} role="status" data-testid="expiry-analyzing">
        {t("analyzing")}
      </p>
    );
  }
  if (!analysis || analysis.state !== "succeeded" || !analysis.age) return <p className={styles.muted}>{t("noAnalysis")}</p>;
  const cutoff = parseRfc3339(analysis.cutoff);
  const kept = Object.entries(analysis.skipped).filter(([, n]) => n > 0);
  return (
    <div className={styles.line} data-testid="expiry-analysis" aria-live="polite">
      {draftAge && !sameAge(draftAge, analysis.age) && <p className={styles.notice}>{t("analysisStale", { age: ageText(analysis.age) })}</p>}
      <p>{t("analysisFor", { age: ageText(analysis.age), time: cutoff === null ? "" : time.absolute(cutoff) })}</p>
      <p>
        <strong>{t("wouldDelete", { threads: analysis.threads, checkpoints: analysis.checkpoints, writes: analysis.writes, bytes: formatBytes(analysis.bytes, locale) })}</strong>
      </p>
      {kept.length > 0 && (
        <p className={styles.muted}>{t("kept", { reasons: new Intl.ListFormat(locale, { type: "conjunction" }).format(kept.map(([r, n]) => t("keptReason", { reason: reason(r), count: formatCount(n, locale) }))) })}</p>
      )}
    </div>
  );
}
