"use client";
// Live progress of the active operation: SSE counts when they arrive, the
// polled record otherwise. Without a known total the bar is indeterminate and
// the text gives counts so far, never a complete-looking total.
import { useTranslations } from "next-intl";
import type { OperationEvent } from "@/lib/events/api";
import type { CompactionOperation } from "@/lib/compaction/policy";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export function OperationProgress(props: {
  operation: CompactionOperation;
  live: OperationEvent | null;
  format: CompactionFormat;
  canCancel: boolean;
  cancelling: boolean;
  onCancel: () => void;
}) {
  const { operation, format } = props;
  const t = useTranslations("compaction.progress");
  const event = props.live?.operationId === operation.id ? props.live : null;
  const scanned = event?.progress.scannedRows ?? operation.scannedRows;
  const changed = event?.progress.changedMessages ?? operation.changedMessages;
  const eligible = event?.progress.eligibleMessages ?? operation.eligibleMessages;
  const total = operation.progress?.totalTasks ?? null;
  const processed = operation.progress?.processedTasks ?? 0;
  // Preparation: the backup copy's progress by bytes.
  const bytes = event?.progress.backupBytes ?? operation.backupBytes ?? null;
  const bytesFraction = bytes?.totalBytes ? Math.min(1, bytes.doneBytes / bytes.totalBytes) : null;
  const fraction = event?.progress.fraction ?? bytesFraction ?? (total ? Math.min(1, processed / total) : null);
  const percent = fraction === null ? null : Math.round(fraction * 100);
  return (
    <div className={styles.progress} data-testid={`retention-progress-${operation.kind}`} data-operation-id={operation.id} data-source={event ? "events" : "polling"}>
      <div className={styles.progressHead}>
        <p className={styles.label} id={`progress-label-${operation.id}`}>
          {t(`label.${operation.kind}`)}
        </p>
        {fraction !== null && <span className={styles.muted}>{format.percent(fraction)}</span>}
      </div>
      <div
        className={styles.progressTrack}
        role="progressbar"
        aria-labelledby={`progress-label-${operation.id}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        aria-valuetext={percent === null ? t("indeterminate") : undefined}
        data-indeterminate={percent === null}
      >
        <span className={styles.progressBar} style={percent === null ? undefined : { width: `${percent}%` }} />
      </div>
      <p className={styles.muted} aria-live="polite">
        {operation.kind === "cleanup"
          ? t("cleanupCounts", { scanned, changed })
          : operation.kind === "analysis"
            ? t("analysisCounts", { scanned, eligible })
            : t("preparationCounts")}
        {operation.kind === "preparation" && bytes
          ? ` ${
              bytes.totalBytes === null
                ? t("backupBytesSoFar", { done: format.bytes(bytes.doneBytes) })
                : t("backupBytes", { done: format.bytes(bytes.doneBytes), total: format.bytes(bytes.totalBytes) })
            }`
          : ""}
        {total !== null ? ` ${t("tasksOfTotal", { processed: format.count(processed), total: format.count(total) })}` : ""}
      </p>
      {props.canCancel && (
        <button type="button" className={styles.secondaryButton} onClick={props.onCancel} disabled={props.cancelling} aria-busy={props.cancelling}>
          {props.cancelling ? t("cancelling") : t("cancel")}
        </button>
      )}
    </div>
  );
}
