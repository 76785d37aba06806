"use client";
// The dry-run report: counts by outcome, the bytes that would come back, and
// the task's tool messages one by one (ids, never contents).
import { useLocale, useTranslations } from "next-intl";
import type { RestoreReport } from "@/lib/task-compaction/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import styles from "./task-compaction.module.css";

const OUTCOMES = ["restorable", "changed_since_compaction", "not_in_backup", "not_compacted"] as const;

export function RestoreReportView({ report }: { report: RestoreReport }) {
  const t = useTranslations("taskCompaction.report");
  const locale = useLocale();
  return (
    <div className={styles.field} data-testid="task-restore-report">
      <h4 className={styles.sectionTitle}>{t("title")}</h4>
      <dl className={styles.counts}>
        {OUTCOMES.map((outcome) => (
          <div key={outcome} className={styles.count} data-testid={`task-restore-count-${outcome}`}>
            <dt>{t(`outcomes.${outcome}`)}</dt>
            <dd>{formatCount(report.counts[outcome], locale)}</dd>
          </div>
        ))}
      </dl>
      <p className={styles.muted}>{t("bytes", { bytes: formatBytes(report.restorableBytes, locale) })}</p>
      <div className={styles.tableWrap} tabIndex={0} role="region" aria-label={t("messagesLabel")}>
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">{t("message")}</th>
              <th scope="col">{t("outcome")}</th>
              <th scope="col" className={styles.num}>
                {t("size")}
              </th>
            </tr>
          </thead>
          <tbody>
            {report.messages.map((message) => (
              <tr key={message.id} data-status={message.status}>
                <td className={styles.mono}>{message.id}</td>
                <td>{t(`outcomes.${message.status}`)}</td>
                <td className={styles.num}>{message.status === "restorable" ? formatBytes(message.bytes, locale) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.truncated && <p className={styles.muted}>{t("truncated", { count: report.messages.length })}</p>}
    </div>
  );
}
