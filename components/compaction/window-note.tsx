"use client";
// The maintenance window (MAINTENANCE_WINDOW) under "Next run": its daily
// hours in its zone, and when it next opens (or closes) in the viewer's zone.
import { useNow, useTranslations } from "next-intl";
import type { MaintenanceWindowView } from "@/lib/compaction/api";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import styles from "./compaction-card.module.css";

export function WindowNote({ window }: { window: MaintenanceWindowView }) {
  const t = useTranslations("maintenanceWindow");
  const time = useFormatTime();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const endsMs = parseRfc3339(window.endsAt);
  const nextMs = parseRfc3339(window.nextStartAt);
  const when = (ms: number) => ({ time: time.absolute(ms), relative: time.relative(ms, now) });
  return (
    <div className={styles.detailPair} data-testid="retention-window" data-open={window.open}>
      <p>
        <strong>{t("title")}</strong>: {t("range", { start: window.start, end: window.end, zone: window.timeZone })}
      </p>
      <p className={styles.muted} data-testid="retention-window-next">
        {window.open && endsMs !== null ? t("openUntil", when(endsMs)) : nextMs !== null ? t("nextStart", when(nextMs)) : null}
      </p>
      <p className={styles.muted}>{t("waits")}</p>
    </div>
  );
}
