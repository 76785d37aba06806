"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { RetentionResult, Totals } from "@/lib/checkpoints/api";
import { formatBytes, formatCount, formatDateTime } from "@/lib/i18n/format";
import { DataTable } from "@/components/ui/data-table";
import styles from "./checkpoint-storage-card.module.css";

type Row = { key: keyof Totals; label: string; bytes: boolean };

/** The latest analysis or cleanup: rows and bytes before and after, per table. */
export function OperationResult({ result }: { result: RetentionResult }) {
  const t = useTranslations("checkpoints.result");
  const locale = useLocale();
  const timeZone = useTimeZone();
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
        {t(`state.${result.state}`)} · {t("finishedAt", { time: formatDateTime(result.finishedAtMs, locale, timeZone) })}
      </p>
      {result.state === "failed" && (
        <p className={styles.error} role="alert">
          {t("failed")}
        </p>
      )}
      <div className={styles.tableWrap} tabIndex={0} role="region" aria-labelledby="checkpoint-result-title">
        <DataTable
          classes={styles}
          rows={rows}
          rowKey={(row) => row.key}
          columns={[
            { key: "measure", header: t("measure"), rowHeader: true, cell: (row) => row.label },
            { key: "before", header: t("before"), numeric: true, cell: (row) => show(row, result.before[row.key]) },
            { key: "after", header: t("after"), numeric: true, cell: (row) => show(row, result.after[row.key]) },
            {
              key: "difference",
              header: result.kind === "analysis" ? t("reclaimable") : t("reclaimed"),
              numeric: true,
              cell: (row) => show(row, Math.max(0, result.before[row.key] - result.after[row.key])),
            },
          ]}
        />
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
