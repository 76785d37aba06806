"use client";
// Expandable scan details of an analysis or run: scan window, cutoff, counts
// and localized skip reasons. Outcomes, times and errors stay outside.
import { useTranslations } from "next-intl";
import type { RetentionOperation } from "@/lib/compaction/policy";
import type { RetentionFormat } from "./use-compaction-format";
import styles from "./retention-card.module.css";

export function OperationDetails(props: { operation: RetentionOperation; format: RetentionFormat; testId: string }) {
  const { operation, format } = props;
  const t = useTranslations("compaction.details");
  const skipped = Object.entries(operation.skipped).filter(([, count]) => count > 0);
  const start = format.time(operation.startedAt);
  const end = format.time(operation.finishedAt);
  const cutoff = format.time(operation.cutoff);
  return (
    <details className={styles.details} data-testid={props.testId}>
      <summary className={styles.summary}>{t("summary")}</summary>
      <dl className={styles.detailList}>
        {start && (
          <>
            <dt>{t("window")}</dt>
            <dd>{end ? t("windowValue", { start, end }) : t("windowOpen", { start })}</dd>
          </>
        )}
        {cutoff && (
          <>
            <dt>{t("cutoff")}</dt>
            <dd>{cutoff}</dd>
          </>
        )}
        <dt>{t("scannedRows")}</dt>
        <dd>{format.count(operation.scannedRows)}</dd>
        <dt>{t("eligibleTasks")}</dt>
        <dd>{format.count(operation.eligibleTasks)}</dd>
        <dt>{t("eligibleMessages")}</dt>
        <dd>{format.count(operation.eligibleMessages)}</dd>
        {operation.kind === "cleanup" && (
          <>
            <dt>{t("changedMessages")}</dt>
            <dd>{format.count(operation.changedMessages)}</dd>
          </>
        )}
      </dl>
      <p className={styles.label}>{t("skipped")}</p>
      {skipped.length === 0 ? (
        <p className={styles.muted}>{t("noSkips")}</p>
      ) : (
        <dl className={styles.detailList} data-testid={`${props.testId}-skips`}>
          {skipped.map(([reason, count]) => (
            <div key={reason} className={styles.detailPair}>
              <dt>{format.skipReason(reason)}</dt>
              <dd>{format.count(count)}</dd>
            </div>
          ))}
        </dl>
      )}
    </details>
  );
}
