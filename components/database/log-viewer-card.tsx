"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useId, useState } from "react";
import type { LogEntry, LogLevel } from "@/lib/logs/api";
import { useLogs } from "@/lib/database/client/use-logs";
import { formatBytes, formatCount, formatDateTime } from "@/lib/i18n/format";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { DatabaseCard, RefreshButton } from "./card-frame";
import { ErrorSummary } from "./error-summary";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

const LEVELS = ["debug", "info", "warn", "error"] as const satisfies readonly LogLevel[];
const TONE: Record<LogLevel, string> = { trace: "", debug: "", info: "info", warn: "warn", error: "error", fatal: "error" };

/** A byte count reads as the exact number and the size the cards show ("21,077,029 (21 MB)"). */
export function fieldValue(key: string, value: string | number | boolean, locale: string): string {
  if (typeof value !== "number") return String(value);
  return /bytes$/i.test(key) ? `${formatCount(value, locale)} (${formatBytes(value, locale)})` : formatCount(value, locale);
}

function Entry({ entry }: { entry: LogEntry }) {
  const t = useTranslations("databaseCards.logs");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const ms = parseRfc3339(entry.time);
  return (
    <li className={styles.logEntry} data-testid="log-entry" data-level={entry.level}>
      <div className={styles.logHead}>
        <span className={styles.badge} data-tone={TONE[entry.level]}>
          {t(`levels.${entry.level}`)}
        </span>
        <time dateTime={entry.time} className={styles.muted}>
          {ms === null ? entry.time : formatDateTime(ms, locale, timeZone, { seconds: true })}
        </time>
      </div>
      <p className={styles.mono}>{entry.msg}</p>
      {Object.keys(entry.fields).length > 0 && (
        <ul className={styles.logFields} aria-label={t("fields")}>
          {Object.entries(entry.fields).map(([key, value]) => (
            <li key={key} className={styles.mono}>
              <span className={styles.muted}>{key}=</span>
              {fieldValue(key, value, locale)}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** Recent structured log lines of this server process: ids and counts only, never payloads. */
export function LogViewerCard() {
  const t = useTranslations("databaseCards.logs");
  const tCommon = useTranslations("databaseCards.common");
  const errorMessage = useErrorMessage();
  const [level, setLevel] = useState<LogLevel>("info");
  const query = useLogs(level);
  const selectId = useId();
  const entries = query.data?.entries ?? [];
  return (
    <DatabaseCard titleId="logs-card-title" title={t("title")} testId="logs-card" header={<RefreshButton query={query} testId="log-refresh" />}>
      <div className={styles.filterRow}>
        <div className={styles.field}>
          <label htmlFor={selectId}>{t("level")}</label>
          <select id={selectId} className={styles.select} value={level} onChange={(event) => setLevel(event.target.value as LogLevel)} data-testid="log-level">
            {LEVELS.map((option) => (
              <option key={option} value={option}>
                {t(`atLeast.${option}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className={styles.muted}>{t("description", { capacity: query.data?.capacity ?? 500 })}</p>
      {query.isPending && <LoadingPlaceholder label={tCommon("loading")} />}
      {query.isError && <ErrorSummary title={t("loadFailed")} message={errorMessage(query.error)} error={query.error} testId="logs-error" />}
      {query.isSuccess && entries.length === 0 && (
        <p className={styles.muted} data-testid="logs-empty">
          {t("empty")}
        </p>
      )}
      {entries.length > 0 && (
        <ol className={styles.logList} data-testid="log-list" aria-label={t("listLabel", { count: entries.length })} tabIndex={0}>
          {entries.map((entry) => (
            <Entry key={entry.seq} entry={entry} />
          ))}
        </ol>
      )}
    </DatabaseCard>
  );
}
