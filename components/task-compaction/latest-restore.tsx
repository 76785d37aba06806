"use client";
// The newest per-task restore of the task, as recorded: running (its counts
// so far), ended, or interrupted (its runner died; running it again finishes).
import { useLocale, useTranslations } from "next-intl";
import type { RestoreOperation } from "@/lib/task-compaction/api";
import { formatBytes } from "@/lib/i18n/format";
import styles from "./task-compaction.module.css";

export function LatestRestore({ operation, date }: { operation: RestoreOperation; date: (iso: string | null) => string }) {
  const t = useTranslations("taskCompaction.latest");
  const locale = useLocale();
  const values = {
    count: operation.restoredMessages,
    bytes: formatBytes(operation.restoredBytes, locale),
    name: operation.backupName,
    date: date(operation.finishedAt ?? operation.startedAt),
  };
  const skipped = Object.values(operation.skipped).reduce((sum, n) => sum + n, 0);
  let text: string;
  if (operation.state === "running") text = t("running", values);
  else if (operation.state === "succeeded") text = t("succeeded", values);
  else if (operation.state === "partial") text = t("partial", values);
  else if (operation.errorCode === "interrupted") text = t("interrupted", values);
  else text = t("failed", values);
  return (
    <div className={operation.state === "failed" || operation.state === "partial" ? styles.warning : styles.info} role="status" data-testid="task-restore-latest" data-state={operation.state}>
      <span>{text}</span>
      {operation.state !== "running" && skipped > 0 && <span className={styles.muted}>{t("skipped", { count: skipped })}</span>}
    </div>
  );
}
