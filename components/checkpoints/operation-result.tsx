"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { RetentionResult, Totals } from "@/lib/checkpoints/api";
import { formatBytes, formatCount, formatDateTime } from "@/lib/i18n/format";
import { DataTable } from "@/components/ui/data-table";
import styles from "./checkpoint-storage-card.module.css";

type Row = { key: keyof Totals; label: string; bytes: boolean };

/** What an analysis found Clean up would remove, or what a cleanup removed: rows and payload bytes. */
export function reclaimedTotals(result: RetentionResult): Totals {
  return {
    checkpoints: Math.max(0, result.before.checkpoints - result.after.checkpoints),
    writes: Math.max(0, result.before.writes - result.after.writes),
    checkpointBytes: Math.max(0, result.before.checkpointBytes - result.after.checkpointBytes),
    writesBytes: Math.max(0, result.before.writesBytes - result.after.writesBytes),
  };
}

/**
 * The latest analysis or cleanup: rows and payload bytes before and after,
 * per table. One landmark (the section); the table inside is plain, and on
 * a phone its rows stack so no header or value is cut.
 */
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
  const reclaimed = reclaimedTotals(result);
  const analysis = result.kind === "analysis";
  return (
    <section className={styles.section} aria-labelledby="checkpoint-result-title" data-testid="checkpoint-result" data-kind={result.kind} data-state={result.state}>
      <h4 id="checkpoint-result-title" className={styles.subTitle}>
        {analysis ? t("analysisTitle") : t("cleanupTitle")}
      </h4>
      <p className={styles.muted}>
        {t(`state.${result.state}`)} · {t("finishedAt", { time: formatDateTime(result.finishedAtMs, locale, timeZone, { seconds: true }) })}
      </p>
      {result.state === "failed" && (
        <p className={styles.error} role="alert">
          {t("failed")}
        </p>
      )}
      <div className={styles.tableWrap}>
        <DataTable
          classes={styles}
          caption={analysis ? t("analysisCaption") : t("cleanupCaption")}
          testId="checkpoint-result-table"
          stack
          rows={rows}
          rowKey={(row) => row.key}
          rowTestId={(row) => `checkpoint-result-${row.key}`}
          columns={[
            { key: "measure", header: t("measure"), rowHeader: true, cell: (row) => row.label },
            { key: "before", header: t("before"), numeric: true, cell: (row) => show(row, result.before[row.key]) },
            { key: "after", header: analysis ? t("afterCleanup") : t("after"), numeric: true, cell: (row) => show(row, result.after[row.key]) },
            { key: "difference", header: analysis ? t("reclaimable") : t("reclaimed"), numeric: true, cell: (row) => show(row, reclaimed[row.key]) },
          ]}
        />
      </div>
      <p className={styles.muted} data-testid="checkpoint-result-threads">
        {t(analysis ? "threadsAnalysis" : "threadsCleanup", {
          scanned: formatCount(result.threadsScanned, locale),
          changed: formatCount(result.threadsChanged, locale),
          skipped: formatCount(result.threadsSkipped, locale),
          orphans: formatCount(result.orphanWritesAfter, locale),
        })}
      </p>
    </section>
  );
}
