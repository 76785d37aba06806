"use client";
// A "run now" button. Messages compaction's ("Compact messages now") removes
// data, so it opens the card's one confirmation, which states the numbers,
// when, the backup, the undo and, outside the maintenance window, that the run
// continues to its end: it passes no window here. Another job's button
// (thread expiry's) passes its window and asks inline first when it is closed.
import { useNow, useTranslations } from "next-intl";
import { useId, useState } from "react";
import type { MaintenanceWindowView } from "@/lib/compaction/api";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import styles from "./compaction-card.module.css";

export type RunOptions = { outsideWindow?: boolean };

export function RunNowButton(props: {
  /** Given: outside this window the button asks first. Absent: the caller's own confirmation says so. */
  window?: MaintenanceWindowView | null;
  starting: boolean;
  onRun: (options?: RunOptions) => void;
  /** Another job's button text (default "Compact messages now") and test-id prefix (default "retention"). */
  label?: string;
  testIdPrefix?: string;
}) {
  const { window, starting, onRun } = props;
  const prefix = props.testIdPrefix ?? "retention";
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
      <div className={`${styles.errorSummary} ${styles.warning}`} role="group" aria-labelledby={titleId} data-testid={`${prefix}-window-confirm`}>
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
            data-testid={`${prefix}-run-anyway`}
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
    <button
      type="button"
      className={styles.primaryButton}
      onClick={() => (closed ? setConfirming(true) : onRun())}
      disabled={starting}
      aria-busy={starting}
      data-testid={`${prefix}-run-now`}
    >
      {starting ? t("starting") : (props.label ?? t("runNow"))}
    </button>
  );
}
