"use client";
// Payload bytes by tool kind: a small bar chart that is a plain list to
// assistive technology (each row reads as "kind: bytes, messages"). Label and
// value share a line and the bar runs full width below, so a phone reads it.
import { useTranslations } from "next-intl";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export function KindChart(props: { byKind: Record<string, { messages: number; payloadBytes: number }>; format: CompactionFormat }) {
  const t = useTranslations("compaction.estimate");
  const rows = Object.entries(props.byKind)
    .filter(([, value]) => value.payloadBytes > 0)
    .sort((a, b) => b[1].payloadBytes - a[1].payloadBytes);
  if (rows.length === 0) return null;
  const max = Math.max(...rows.map(([, value]) => value.payloadBytes));
  return (
    <figure className={styles.chart} data-testid="retention-kind-chart">
      <figcaption className={styles.label}>{t("chartTitle")}</figcaption>
      <ul className={styles.chartList}>
        {rows.map(([kind, value]) => (
          <li key={kind} className={styles.chartRow}>
            <span className={styles.chartText}>
              <span>{props.format.toolKind(kind)}</span>
              <span className={styles.chartValue}>
                {t("kindValue", { bytes: props.format.bytes(value.payloadBytes), messages: value.messages })}
              </span>
            </span>
            <span className={styles.chartTrack} aria-hidden="true">
              <span className={styles.chartBar} style={{ width: `${Math.max(2, Math.round((value.payloadBytes / max) * 100))}%` }} />
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
