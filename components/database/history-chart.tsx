"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { useLocale, useTranslations } from "next-intl";
import { STORAGE_AREAS, type StorageSample, type StorageTrigger } from "@/lib/database/history-api";
import { formatBytes } from "@/lib/i18n/format";
import { chartGeometry } from "./history-chart-geometry";
import { formatAxisDay, formatDay } from "./history-format";
import styles from "./history.module.css";

const HEIGHT = 240;
const BOX = { left: 64, right: 12, top: 14, bottom: 28 };

export const AREA_COLORS = { messages: "#2952cc", checkpoints: "#0f7b66", other: "#7b8594" } as const;
export const MARKER_COLORS: Record<Exclude<StorageTrigger, "daily">, string> = {
  compaction: "#b45309",
  checkpoint_cleanup: "#7c3aed",
  thread_expiry: "#be185d",
  vacuum: "#0e7490",
  restore: "#b42318",
  payload_restore: "#475569",
};

/** A marker's shape tells operations apart without colour. */
export function MarkerGlyph({ trigger, x, y, size = 5 }: { trigger: Exclude<StorageTrigger, "daily">; x: number; y: number; size?: number }) {
  const fill = MARKER_COLORS[trigger];
  switch (trigger) {
    case "compaction":
      return <path d={`M${x} ${y + size} L${x - size} ${y - size} L${x + size} ${y - size} Z`} fill={fill} />;
    case "checkpoint_cleanup":
      return <rect x={x - size} y={y - size} width={size * 2} height={size * 2} fill={fill} />;
    case "vacuum":
      return <path d={`M${x} ${y - size - 1} L${x + size + 1} ${y} L${x} ${y + size + 1} L${x - size - 1} ${y} Z`} fill={fill} />;
    case "thread_expiry":
      return <path d={`M${x - size} ${y + size} L${x} ${y - size} L${x + size} ${y + size} Z`} fill={fill} />;
    default:
      return <circle cx={x} cy={y} r={size} fill={fill} />;
  }
}

/** The width the chart has on screen (a phone's is narrow: the axes keep their type size instead of scaling down). */
function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(240, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/**
 * Space in use over time as stacked areas (messages, checkpoints, other),
 * the size on disk as a dashed line above, and a marker where each
 * maintenance operation ran. The picture is an image with a summary for
 * screen readers; the data table beside it holds every number.
 */
export function HistoryChart({ samples, days, timeZone }: { samples: StorageSample[]; days: number; timeZone: string }) {
  const t = useTranslations("storageHistory");
  const locale = useLocale();
  const [ref, width] = useWidth();
  const geometry = useMemo(() => chartGeometry(samples, { width, height: HEIGHT, ...BOX }, { xTickCount: width < 420 ? 3 : 5 }), [samples, width]);
  const first = samples[0];
  const last = samples[samples.length - 1];
  const label =
    first && last
      ? t("chartLabel", {
          days,
          from: formatBytes(first.usedBytes, locale),
          to: formatBytes(last.usedBytes, locale),
          start: formatDay(first.atMs, locale, timeZone),
          end: formatDay(last.atMs, locale, timeZone),
          events: geometry.markers.length,
        })
      : "";
  return (
    <div ref={ref} className={styles.chartFrame} data-testid="history-chart">
      <svg width={width} height={HEIGHT} role="img" aria-label={label} className={styles.chart}>
        {geometry.yTicks.map((tick) => (
          <g key={tick.value}>
            <line x1={BOX.left} x2={width - BOX.right} y1={tick.position} y2={tick.position} className={styles.grid} />
            <text x={BOX.left - 6} y={tick.position} className={styles.axisText} textAnchor="end" dominantBaseline="middle" data-testid="history-y-tick">
              {formatBytes(tick.value, locale)}
            </text>
          </g>
        ))}
        {geometry.xTicks.map((tick, i) => (
          <text
            key={tick.value}
            x={tick.position}
            y={HEIGHT - 8}
            className={styles.axisText}
            textAnchor={i === 0 ? "start" : i === geometry.xTicks.length - 1 ? "end" : "middle"}
          >
            {formatAxisDay(tick.value, locale, timeZone)}
          </text>
        ))}
        {geometry.areas.map(({ area, path }) => (
          <path key={area} d={path} fill={AREA_COLORS[area]} fillOpacity={0.8} data-area={area} />
        ))}
        <path d={geometry.totalPath} className={styles.totalLine} data-testid="history-total-line" />
        {geometry.markers.map((marker) => (
          <g key={marker.sample.id} data-testid="history-marker" data-trigger={marker.trigger}>
            <line x1={marker.x} x2={marker.x} y1={BOX.top} y2={HEIGHT - BOX.bottom} className={styles.markerLine} stroke={MARKER_COLORS[marker.trigger]} />
            <MarkerGlyph trigger={marker.trigger} x={marker.x} y={BOX.top} />
          </g>
        ))}
      </svg>
      <ul className={styles.legend} aria-label={t("legendLabel")}>
        {STORAGE_AREAS.map((area) => (
          <li key={area}>
            <span className={styles.swatch} style={{ background: AREA_COLORS[area] }} aria-hidden="true" />
            {t(`areas.${area}`)}
          </li>
        ))}
        <li>
          <span className={styles.lineSwatch} aria-hidden="true" />
          {t("onDisk")}
        </li>
      </ul>
    </div>
  );
}
