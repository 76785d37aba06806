"use client";
// Expandable scan details of an analysis or run: scan window (with seconds
// and how long it took), cutoff, and the counts as sums that add up: tasks
// checked = eligible + skipped (task-level reasons count tasks), tool
// messages scanned = eligible + skipped (row-level reasons count messages),
// plus the rows of tasks that fell out during a pass, which are neither.
// Outcomes, times and errors stay outside.
import { useTranslations } from "next-intl";
import type { CompactionOperation } from "@/lib/compaction/policy";
import { INELIGIBLE_REASONS } from "@/lib/compaction/skip-reasons";
import { Disclosure } from "@/components/ui/disclosure";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

const TASK_REASONS: ReadonlySet<string> = new Set(INELIGIBLE_REASONS);

export type SkipTotals = {
  tasks: { total: number; eligible: number; skipped: number; reasons: [string, number][] };
  messages: { total: number; eligible: number; skipped: number; reasons: [string, number][]; droppedDuringPass: number };
};

/** Splits the one skip map by what each reason counts; a reason this build does not know (a newer server) counts messages. */
export function skipTotals(operation: CompactionOperation): SkipTotals {
  const entries = Object.entries(operation.skipped).filter(([, count]) => count > 0);
  const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || a[0].localeCompare(b[0]);
  const taskReasons = entries.filter(([reason]) => TASK_REASONS.has(reason)).sort(byCount);
  const rowReasons = entries.filter(([reason]) => !TASK_REASONS.has(reason)).sort(byCount);
  const sum = (list: [string, number][]) => list.reduce((n, [, count]) => n + count, 0);
  const taskSkipped = sum(taskReasons);
  const rowSkipped = sum(rowReasons);
  const tasksTotal = Math.max(operation.progress?.processedTasks ?? 0, operation.eligibleTasks + taskSkipped);
  return {
    tasks: { total: tasksTotal, eligible: operation.eligibleTasks, skipped: tasksTotal - operation.eligibleTasks, reasons: taskReasons },
    messages: {
      total: operation.scannedRows,
      eligible: operation.eligibleMessages,
      skipped: rowSkipped,
      reasons: rowReasons,
      droppedDuringPass: Math.max(0, operation.scannedRows - operation.eligibleMessages - rowSkipped),
    },
  };
}

function ReasonList(props: { reasons: [string, number][]; unit: "tasks" | "messages"; format: CompactionFormat; testId: string }) {
  const t = useTranslations("compaction.details");
  if (props.reasons.length === 0) return null;
  return (
    <ul className={styles.reasonList} data-testid={props.testId}>
      {props.reasons.map(([reason, count]) => (
        <li key={reason} className={styles.reasonItem} data-reason={reason}>
          <span className={styles.reasonHead}>
            <span>{props.format.skipReason(reason)}</span>
            <span className={styles.reasonCount}>{t(props.unit === "tasks" ? "taskCount" : "messageCount", { count })}</span>
          </span>
          <span className={styles.muted}>{props.format.skipHint(reason)}</span>
        </li>
      ))}
    </ul>
  );
}

export function OperationDetails(props: { operation: CompactionOperation; format: CompactionFormat; testId: string }) {
  const { operation, format } = props;
  const t = useTranslations("compaction.details");
  const totals = skipTotals(operation);
  const start = format.timeSeconds(operation.startedAt);
  const end = format.timeSeconds(operation.finishedAt);
  const duration = format.duration(operation.startedAt, operation.finishedAt);
  const cutoff = format.time(operation.cutoff);
  return (
    <Disclosure summary={t("summary")} testId={props.testId} className={styles.details} summaryClassName={styles.summary}>
      <dl className={styles.detailList}>
        {start && (
          <>
            <dt>{t("window")}</dt>
            <dd data-testid={`${props.testId}-window`}>{end ? t("windowValue", { start, end, duration: duration ?? "" }) : t("windowOpen", { start })}</dd>
          </>
        )}
        {cutoff && (
          <>
            <dt>{t("cutoff")}</dt>
            <dd>{cutoff}</dd>
          </>
        )}
        <dt>{t("tasksChecked")}</dt>
        <dd data-testid={`${props.testId}-tasks`}>
          {t("sumValue", { total: format.count(totals.tasks.total), eligible: format.count(totals.tasks.eligible), skipped: format.count(totals.tasks.skipped) })}
        </dd>
        <dt>{t("messagesScanned")}</dt>
        <dd data-testid={`${props.testId}-messages`}>
          {t("sumValue", {
            total: format.count(totals.messages.total),
            eligible: format.count(totals.messages.eligible),
            skipped: format.count(totals.messages.skipped + totals.messages.droppedDuringPass),
          })}
        </dd>
        {operation.kind === "cleanup" && (
          <>
            <dt>{t("changedMessages")}</dt>
            <dd>{format.count(operation.changedMessages)}</dd>
          </>
        )}
      </dl>
      {totals.tasks.reasons.length === 0 && totals.messages.reasons.length === 0 && totals.messages.droppedDuringPass === 0 ? (
        <p className={styles.muted}>{t("noSkips")}</p>
      ) : (
        <div data-testid={`${props.testId}-skips`}>
          {totals.tasks.reasons.length > 0 && <p className={styles.label}>{t("skippedTasks", { count: totals.tasks.skipped })}</p>}
          <ReasonList reasons={totals.tasks.reasons} unit="tasks" format={format} testId={`${props.testId}-task-skips`} />
          {totals.messages.skipped + totals.messages.droppedDuringPass > 0 && (
            <p className={styles.label}>{t("skippedMessages", { count: totals.messages.skipped + totals.messages.droppedDuringPass })}</p>
          )}
          <ReasonList reasons={totals.messages.reasons} unit="messages" format={format} testId={`${props.testId}-message-skips`} />
          {totals.messages.droppedDuringPass > 0 && (
            <ul className={styles.reasonList}>
              <li className={styles.reasonItem} data-reason="dropped_during_pass">
                <span className={styles.reasonHead}>
                  <span>{t("droppedDuringPass")}</span>
                  <span className={styles.reasonCount}>{t("messageCount", { count: totals.messages.droppedDuringPass })}</span>
                </span>
                <span className={styles.muted}>{t("droppedDuringPassHint")}</span>
              </li>
            </ul>
          )}
        </div>
      )}
    </Disclosure>
  );
}
