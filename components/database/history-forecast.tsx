"use client";

import { useId, useMemo, useState, useSyncExternalStore } from "react";
import { useLocale, useTranslations } from "next-intl";
import type { GrowthFit, StorageSample } from "@/lib/database/history-api";
import { forecastReach } from "@/lib/database/forecast";
import { formatBytes } from "@/lib/i18n/format";
import { niceCeiling } from "./history-chart-geometry";
import { formatDay } from "./history-format";
import cards from "./cards.module.css";
import styles from "./history.module.css";

/** Sizes are typed in decimal gigabytes, the unit system of every size the console shows. */
const GB = 1_000_000_000;
const STORAGE_KEY = "storage-history.forecast-gb";

/** "12,5" and "12.5" both read 12.5; anything else that is not a positive number is null. */
export function parseGigabytes(text: string): number | null {
  const normalized = text.trim().replace(",", ".");
  if (!/^\d+(\.\d+)?$/.test(normalized)) return null;
  const value = Number(normalized);
  return value > 0 && value < 1e9 ? value : null;
}

const oneDecimal = (value: number) => String(Math.floor(value * 10) / 10);

/** What to forecast before the admin picks: the disk's size when known, else a round size above twice today's. */
export function defaultTargetGb(latest: StorageSample): string {
  if (latest.diskFreeBytes !== null && latest.diskFreeBytes > 0) return oneDecimal((latest.totalBytes + latest.diskFreeBytes) / GB);
  return oneDecimal(niceCeiling(Math.max(2 * latest.totalBytes, GB / 10)) / GB);
}

function subscribeToStorage(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  return () => window.removeEventListener("storage", onChange);
}

function readStoredTarget(): string | null {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return value !== null && parseGigabytes(value) !== null ? value : null;
  } catch {
    return null;
  }
}

/**
 * The forecast for a size the admin types (kept in this browser): the date
 * the database reaches it, with the 95 % range, or why there is none.
 * Reading only: viewers may forecast too.
 */
export function HistoryForecast({ growth, latest, timeZone }: { growth: GrowthFit; latest: StorageSample; timeZone: string }) {
  const t = useTranslations("storageHistory.forecast");
  const locale = useLocale();
  const inputId = useId();
  const hintId = useId();
  // What the admin typed here; before that, the size this browser remembers, else the default.
  const [typed, setTyped] = useState<string | null>(null);
  const stored = useSyncExternalStore(subscribeToStorage, readStoredTarget, () => null);
  const text = typed ?? stored ?? defaultTargetGb(latest);
  const gigabytes = parseGigabytes(text);
  const forecast = useMemo(() => (gigabytes === null ? null : forecastReach(growth, { targetBytes: Math.round(gigabytes * GB), currentBytes: latest.totalBytes })), [gigabytes, growth, latest.totalBytes]);
  const change = (value: string) => {
    setTyped(value);
    try {
      if (parseGigabytes(value) !== null) window.localStorage.setItem(STORAGE_KEY, value);
    } catch {
      // Storage refused (private mode, quota): the size still applies on this page.
    }
  };
  const diskBytes = latest.diskFreeBytes !== null && latest.diskFreeBytes > 0 ? latest.totalBytes + latest.diskFreeBytes : null;
  const day = (ms: number) => formatDay(ms, locale, timeZone);
  const size = gigabytes === null ? "" : formatBytes(gigabytes * GB, locale);
  return (
    <section className={styles.forecast} aria-labelledby={`${inputId}-title`} data-testid="history-forecast">
      <h4 id={`${inputId}-title`} className={styles.smallTitle}>
        {t("title")}
      </h4>
      <div className={cards.inlineForm}>
        <div className={`${cards.field} ${styles.targetField}`}>
          <label htmlFor={inputId}>{t("targetLabel")}</label>
          <input
            id={inputId}
            className={cards.input}
            inputMode="decimal"
            autoComplete="off"
            value={text}
            aria-describedby={hintId}
            aria-invalid={gigabytes === null}
            onChange={(event) => change(event.target.value)}
            data-testid="forecast-target"
          />
          <span id={hintId} className={styles.muted}>
            {t("targetHint")}
          </span>
        </div>
        {diskBytes !== null && (
          <button type="button" className={cards.button} onClick={() => change(oneDecimal(diskBytes / GB))} data-testid="forecast-use-disk">
            {t("useDisk", { size: formatBytes(diskBytes, locale) })}
          </button>
        )}
      </div>
      <div role="status" aria-live="polite" className={styles.forecastResult} data-testid="forecast-result" data-state={forecast?.state ?? "invalid"}>
        {growth.state === "fit" && growth.bytesPerDay !== 0 && (
          <p>{growth.bytesPerDay > 0 ? t("growth", { rate: formatBytes(growth.bytesPerDay, locale) }) : t("shrinking", { rate: formatBytes(-growth.bytesPerDay, locale) })}</p>
        )}
        {forecast === null && <p className={styles.invalid}>{t("invalidTarget")}</p>}
        {forecast?.state === "reaches" && (
          <p>
            <strong>{t("reaches", { size, date: day(forecast.atMs) })}</strong>{" "}
            {forecast.latestMs !== null ? t("range", { earliest: day(forecast.earliestMs), latest: day(forecast.latestMs) }) : t("rangeOpen", { earliest: day(forecast.earliestMs) })}
          </p>
        )}
        {forecast?.state === "reached" && <p>{t("reached", { size })}</p>}
        {forecast?.state === "not_growing" && <p>{t("notGrowing")}</p>}
        {forecast?.state === "insufficient_data" && <p>{t("insufficient")}</p>}
        {forecast?.state === "beyond_horizon" && <p>{t("beyond")}</p>}
      </div>
    </section>
  );
}
