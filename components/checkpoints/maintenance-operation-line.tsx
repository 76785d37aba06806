"use client";
// One line about a scheduled-maintenance operation: its state and time, what
// it deleted or reclaimed, who started it; for a pass waiting to continue,
// why it waits. Counts only, never content.
import { useLocale, useNow, useTranslations } from "next-intl";
import type { MaintenanceOperation } from "@/lib/checkpoints/maintenance-api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { useReasonText } from "./use-reason-text";
import styles from "./checkpoint-schedule.module.css";

export function MaintenanceOperationLine({ operation, testId }: { operation: MaintenanceOperation; testId?: string }) {
  const t = useTranslations("checkpoints.schedule.operation");
  const reason = useReasonText();
  const locale = useLocale();
  const time = useFormatTime();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const at = (text: string | null) => {
    const ms = parseRfc3339(text);
    return ms === null ? { time: "", relative: "" } : { time: time.absolute(ms), relative: time.relative(ms, now) };
  };
  const counts = {
    threads: operation.threads,
    checkpoints: operation.checkpoints,
    bytes: formatBytes(operation.bytes, locale),
  };
  // Every piece is a whole phrase of the catalog, punctuation included (full-width in Chinese).
  let text: string;
  if (operation.kind === "expiry_preparation") text = t("preparing");
  else if (operation.state === "queued") text = t("queued");
  else if (operation.state === "running") {
    text = t("running", { ...at(operation.startedAt), progress: t("progress", { threads: operation.threads, scanned: formatCount(operation.threadsScanned, locale) }) });
  } else if (operation.state === "partial" && !operation.finishedAt) text = t("waiting", { reason: reason(operation.errorCode) });
  else text = t(operation.state, { ...at(operation.finishedAt), counts: operation.kind === "checkpoint_cleanup" ? t("cleanupCounts", counts) : t("expiryCounts", counts) });
  if (operation.finishedAt && operation.state !== "succeeded" && operation.errorCode) text = t("because", { text, reason: reason(operation.errorCode) });
  return (
    <p className={styles.line} data-testid={testId} data-state={operation.state}>
      {operation.trigger === "scheduled" ? t("scheduled", { text }) : t("manual", { text })}
    </p>
  );
}
