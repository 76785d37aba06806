"use client";

import { useLocale, useTranslations } from "next-intl";
import type { RetentionResult, Totals } from "@/lib/checkpoints/api";
import { formatBytes, formatCount, formatDateTime } from "@/lib/i18n/format";
import styles from "./checkpoint-storage-card.module.css";

type Row = { key: keyof Totals; label: string; bytes: boolean };

/** The latest analysis or cleanup: rows and bytes before and after, per table. */
export function OperationResult({ result }: { result: RetentionResult }) {
  const t = useTranslations("checkpoints.result");
  const locale = useLocale();
  const rows: Row[] = [
    { key: "checkpoints", label: t("checkpointRows"), bytes: false },
    { key: "writes", label: t("writeRows"), bytes: false },
    { key: "checkpointBytes", label: t("checkpointBytes"), bytes: true },
    { key: "writesBytes", label: t("writeBytes"), bytes: true },
  ];
  const show = (row: Row, value: number) => (row.bytes ? formatBytes(value, locale) : formatCount(value, locale));
  const title = result.kind === "analysis" ? t("analysisTitle") : t("cleanupTitle");
  return (
    <section className={styles.section} aria-labelledby="checkpoint-result-title" data-testid="checkpoint-result">
      <h4 id="checkpoint-result-title" className={styles.subTitle}>
        {title}
      </h4>
      <p className={styles.muted}>
        {t(`state.${result.state}`)} · {t("finishedAt", { time: formatDateTime(result.finishedAtMs, locale) })}
      </p>
      {result.state === "failed" && (
        <p className={styles.error} role="alert">
          {t("failed")}
        </p>
      )}
      <div className={styles.tableWrap} tabIndex={0} role="region" aria-labelledby="checkpoint-result-title">
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">{t("measure")}</th>
              <th scope="col" className={styles.num}>{t("before")}</th>
              <th scope="col" className={styles.num}>{t("after")}</th>
              <th scope="col" className={styles.num}>{result.kind === "analysis" ? t("reclaimable") : t("reclaimed")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.label}</th>
                <td className={styles.num}>{show(row, result.before[row.key])}</td>
                <td className={styles.num}>{show(row, result.after[row.key])}</td>
                <td className={styles.num}>{show(row, Math.max(0, result.before[row.key] - result.after[row.key]))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className={styles.muted}>
        {t("threads", {
          scanned: formatCount(result.threadsScanned, locale),
          changed: formatCount(result.threadsChanged, locale),
          skipped: formatCount(result.threadsSkipped, locale),
        })}{" "}
        {t("orphans", { count: formatCount(result.orphanWritesAfter, locale) })}
      </p>
    </section>
  );
}
