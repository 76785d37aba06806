"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { ShellOutputRemoved } from "@/lib/conversation/api";
import { formatDateTime } from "@/lib/i18n/format";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import cards from "@/components/database/cards.module.css";
import styles from "./conversation.module.css";

/** "Output removed on {date}" with what compaction kept: command, exit code, directory. */
export function RemovedNotice({ removedAt, summary }: { removedAt: string | null; summary: ShellOutputRemoved["summary"] | null }) {
  const t = useTranslations("conversation.output");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const ms = parseRfc3339(removedAt);
  return (
    <div className={cards.warning} role="status" data-testid="output-removed">
      <strong>{ms === null ? t("removedUndated") : t("removedOn", { date: formatDateTime(ms, locale, timeZone) })}</strong>
      <span>{t("removedExplanation")}</span>
      {summary && (
        <dl className={styles.summary} aria-label={t("retainedSummary")}>
          {summary.command !== null && (
            <>
              <dt>{t("command")}</dt>
              <dd className={cards.mono}>{summary.command}</dd>
            </>
          )}
          {summary.workDir !== null && (
            <>
              <dt>{t("workDir")}</dt>
              <dd className={cards.mono}>{summary.workDir}</dd>
            </>
          )}
          <dt>{t("exitCode")}</dt>
          <dd>{summary.exitCode === null ? t("unknown") : summary.exitCode}</dd>
          {summary.removedFields.length > 0 && (
            <>
              <dt>{t("removedFields")}</dt>
              <dd>{t("removedFieldCount", { count: summary.removedFields.length })}</dd>
            </>
          )}
        </dl>
      )}
    </div>
  );
}
