"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useStorageHistory } from "@/lib/database/client/use-storage-history";
import { useStorageSampledEvents } from "@/lib/database/client/use-storage-sampled-events";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { ErrorSummary } from "./error-summary";
import { HistoryChart } from "./history-chart";
import { HistoryEvents } from "./history-events";
import { HistoryForecast } from "./history-forecast";
import { HistoryTable } from "./history-table";
import cards from "./cards.module.css";
import styles from "./history.module.css";

export const HISTORY_RANGES = [30, 120, 400] as const;

/**
 * The storage card's history: space in use by area over time with the
 * maintenance operations marked, what each gave back, the data table, and
 * the forecast. New samples (from the event stream) refresh it.
 */
export function StorageHistory() {
  const t = useTranslations("storageHistory");
  const errorMessage = useErrorMessage();
  const { timeZone } = useFormatTime();
  const [days, setDays] = useState<(typeof HISTORY_RANGES)[number]>(120);
  const query = useStorageHistory(days);
  useStorageSampledEvents();
  const data = query.data?.capability === "supported" ? query.data : null;
  return (
    <section className={styles.history} aria-labelledby="storage-history-title" aria-busy={query.isFetching} data-testid="storage-history">
      <div className={styles.headRow}>
        <h3 id="storage-history-title" className={cards.subTitle}>
          {t("title")}
        </h3>
        <div className={styles.ranges} role="group" aria-label={t("rangeLabel")}>
          {HISTORY_RANGES.map((range) => (
            <button key={range} type="button" className={cards.button} aria-pressed={days === range} onClick={() => setDays(range)} data-testid={`history-range-${range}`}>
              {t("rangeDays", { days: range })}
            </button>
          ))}
        </div>
      </div>
      <p className={styles.muted}>{t("intro")}</p>
      {query.isPending && <div className={cards.skeleton} role="status" aria-label={t("loading")} />}
      {query.isError && !data && <ErrorSummary title={t("loadFailed")} message={errorMessage(query.error)} error={query.error} testId="history-error" />}
      {data && data.samples.length === 0 && (
        <p className={styles.muted} data-testid="history-empty">
          {t("empty")}
        </p>
      )}
      {data && data.samples.length > 0 && (
        <>
          <HistoryChart samples={data.samples} days={data.days} timeZone={timeZone} />
          <HistoryEvents samples={data.samples} timeZone={timeZone} />
          <HistoryTable samples={data.samples} timeZone={timeZone} />
          {data.latest && <p className={styles.muted}>{t(`methods.${data.latest.method}`)}</p>}
        </>
      )}
      {data && data.malformedSamples > 0 && (
        <p className={cards.warning} data-testid="history-malformed">
          {t("malformed", { count: data.malformedSamples })}
        </p>
      )}
      {data?.latest && <HistoryForecast growth={data.growth} latest={data.latest} timeZone={timeZone} />}
    </section>
  );
}
