"use client";

import { useLocale, useTranslations } from "next-intl";
import { useVacuum } from "@/lib/database/client/use-vacuum";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { BusyButton } from "@/components/ui/busy-button";
import { ErrorSummary } from "./error-summary";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

/**
 * VACUUM as an explicit admin action with its before/after result. The
 * button's state says nothing about database health; a 503 is shown as an
 * error with its code, never swallowed (TPR-UI-06).
 */
export function VacuumPanel({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("databaseCards.vacuum");
  const locale = useLocale();
  const errorMessage = useErrorMessage();
  const vacuum = useVacuum();
  return (
    <section className={styles.subsection} aria-labelledby="vacuum-title" data-testid="vacuum-panel">
      <h4 id="vacuum-title" className={styles.subTitle}>
        {t("title")}
      </h4>
      <p className={styles.muted}>{t("description")}</p>
      <p className={styles.warning}>{t("exclusiveNote")}</p>
      {isAdmin ? (
        <div className={styles.cardActions}>
          <BusyButton className={styles.buttonPrimary} onClick={() => vacuum.mutate()} busy={vacuum.isPending} label={t("run")} busyLabel={t("running")} data-testid="vacuum-button" />
        </div>
      ) : (
        <p className={styles.muted} data-testid="vacuum-read-only">
          {t("adminOnly")}
        </p>
      )}
      {vacuum.isError && (
        <ErrorSummary title={t("failed")} message={errorMessage(vacuum.error)} error={vacuum.error} focusOnMount testId="vacuum-error" />
      )}
      {vacuum.isSuccess && (
        <div className={styles.success} role="status" data-testid="vacuum-result">
          <strong>{t("doneTitle")}</strong>
          <span>
            {t("result", {
              before: formatBytes(vacuum.data.beforeBytes, locale),
              after: formatBytes(vacuum.data.afterBytes, locale),
              freed: formatBytes(vacuum.data.freedBytes, locale),
            })}
          </span>
          <span className={styles.muted}>{t("duration", { seconds: formatCount(Math.round(vacuum.data.durationMs / 100) / 10, locale) })}</span>
        </div>
      )}
    </section>
  );
}
