"use client";
// The task page's compaction panel (issue 29): what compaction removed from
// this task, its hold, and, for admins, per-task restore from a backup with
// a dry run first and a confirmation that states the consequence. Viewers
// see the same states without the controls; the API checks every mutation.
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { EventSourceFactory } from "@/lib/events/client/event-stream";
import { formatBytes, formatDateTime } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { useRestoreEvents } from "@/lib/task-compaction/client/use-restore-events";
import { useRestoreSummary } from "@/lib/task-compaction/client/use-restore-summary";
import { ErrorSummary } from "@/components/database/error-summary";
import { Card } from "@/components/ui/card";
import { HoldControl } from "./hold-control";
import { LatestRestore } from "./latest-restore";
import { RestoreSection } from "./restore-section";
import styles from "./task-compaction.module.css";

export function TaskCompactionPanel({ taskId, isAdmin, eventSource }: { taskId: string; isAdmin: boolean; eventSource?: EventSourceFactory }) {
  const t = useTranslations("taskCompaction");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const errorMessage = useErrorMessage();
  const summary = useRestoreSummary(taskId);
  useRestoreEvents(taskId, eventSource);
  const data = summary.data;
  const date = (iso: string | null) => {
    const ms = iso === null ? null : parseRfc3339(iso);
    return ms === null ? "" : formatDateTime(ms, locale, timeZone);
  };
  const running = data?.latest?.state === "running";
  return (
    <Card classes={styles} level={2} titleId="task-retention-title" title={t("title")} busy={summary.isPending || running} testId="task-retention">
      {summary.isPending && <div className={styles.skeleton} role="status" aria-label={t("loading")} />}
      {summary.isError && <ErrorSummary title={t("loadFailed")} message={errorMessage(summary.error)} error={summary.error} testId="task-retention-error" />}
      {data && (
        <>
          <p data-testid="task-retention-removed">
            {data.compacted.messages === 0
              ? t("nothingRemoved")
              : data.compacted.firstRemovedAt === data.compacted.lastRemovedAt
                ? t("removedOn", { count: data.compacted.messages, bytes: formatBytes(data.compacted.removedBytes, locale), date: date(data.compacted.firstRemovedAt) })
                : t("removedBetween", {
                    count: data.compacted.messages,
                    bytes: formatBytes(data.compacted.removedBytes, locale),
                    first: date(data.compacted.firstRemovedAt),
                    last: date(data.compacted.lastRemovedAt),
                  })}
          </p>
          <HoldControl taskId={taskId} isAdmin={isAdmin} busy={running} />
          {data.latest && <LatestRestore operation={data.latest} date={date} />}
          {data.compacted.messages > 0 && (isAdmin ? <RestoreSection taskId={taskId} summary={data} date={date} /> : null)}
          {!isAdmin && data.compacted.messages > 0 && (
            <p data-testid="task-restore-availability">{data.backups.length === 0 ? t("restoreNone") : t("restoreAvailability", { count: data.backups.length })}</p>
          )}
          {!isAdmin && <p className={styles.muted}>{t("viewerNote")}</p>}
        </>
      )}
    </Card>
  );
}
