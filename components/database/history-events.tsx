"use client";

import { useLocale, useTranslations } from "next-intl";
import type { StorageSample } from "@/lib/database/history-api";
import { formatBytes } from "@/lib/i18n/format";
import { MarkerGlyph } from "./history-chart";
import { formatDay } from "./history-format";
import styles from "./history.module.css";

const SHOWN = 5;

/** The maintenance operations the chart marks, newest first, with what each gave back. */
export function HistoryEvents({ samples, timeZone }: { samples: StorageSample[]; timeZone: string }) {
  const t = useTranslations("storageHistory");
  const locale = useLocale();
  const events = samples.filter((s) => s.trigger !== "daily").reverse();
  return (
    <div className={styles.events} data-testid="history-events">
      <h4 className={styles.smallTitle}>{t("eventsTitle")}</h4>
      {events.length === 0 ? (
        <p className={styles.muted}>{t("noEvents")}</p>
      ) : (
        <ul className={styles.eventList}>
          {events.slice(0, SHOWN).map((event) => (
            <li key={event.id} data-testid="history-event" data-trigger={event.trigger}>
              <svg width="14" height="14" aria-hidden="true" className={styles.glyph}>
                {event.trigger !== "daily" && <MarkerGlyph trigger={event.trigger} x={7} y={7} size={5} />}
              </svg>
              <span className={styles.eventWhen}>{formatDay(event.atMs, locale, timeZone)}</span>
              <span>{t(`triggers.${event.trigger}`)}</span>
              <span className={styles.muted}>
                {event.reclaimedBytes !== null ? t("gaveBack", { size: formatBytes(event.reclaimedBytes, locale) }) : t("inUseAfter", { size: formatBytes(event.usedBytes, locale) })}
              </span>
            </li>
          ))}
        </ul>
      )}
      {events.length > SHOWN && <p className={styles.muted}>{t("moreEvents", { count: events.length - SHOWN })}</p>}
    </div>
  );
}
