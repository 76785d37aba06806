"use client";
// "Compact messages now". Outside the maintenance window it first asks:
// the run then continues to its end even outside the window.
import { useNow, useTranslations } from "next-intl";
import { useId, useState } from "react";
import type { MaintenanceWindowView } from "@/lib/compaction/api";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import styles from "./retention-card.module.css";

export type RunOptions = { outsideWindow?: boolean };

export function RunNowButton(props: { window: MaintenanceWindowView | null | undefined; starting: boolean; onRun: (options?: RunOptions) => void }) {
  const { window, starting, onRun } = props;
  const t = useTranslations("compaction.run");
  const tw = useTranslations("maintenanceWindow");
  const time = useFormatTime();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const [confirming, setConfirming] = useState(false);
  const titleId = useId();
  const nextMs = parseRfc3339(window?.nextStartAt ?? null);
  const closed = !!window && !window.open;
  if (confirming && closed) {
    return (
      <div className={`${styles.errorSummary} ${styles.warning}`} role="group" aria-labelledby={titleId} data-testid="retention-window-confirm">
        <p id={titleId} className={styles.errorTitle}>
          {tw("confirmTitle")}
        </p>
        {nextMs !== null && <p>{tw("confirmBody", { time: time.absolute(nextMs), relative: time.relative(nextMs, now) })}</p>}
        <div className={styles.inlineActions}>
          <button
            type="button"
            className={styles.primaryButton}
            disabled={starting}
            aria-busy={starting}
            onClick={() => {
              setConfirming(false);
              onRun({ outsideWindow: true });
            }}
            data-testid="retention-run-anyway"
          >
            {starting ? t("starting") : tw("runAnyway")}
          </button>
          <button type="button" className={styles.secondaryButton} onClick={() => setConfirming(false)}>
            {tw("wait")}
          </button>
        </div>
      </div>
    );
  }
  return (
    <button type="button" className={styles.primaryButton} onClick={() => (closed ? setConfirming(true) : onRun())} disabled={starting} aria-busy={starting}>
      {starting ? t("starting") : t("runNow")}
    </button>
  );
}
