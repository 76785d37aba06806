"use client";
// "Automatic compaction" with its switch beside the label. Turning it off is
// always possible, whatever else is going on.
import { useTranslations } from "next-intl";
import styles from "./retention-card.module.css";

export function AutomaticSwitch(props: { checked: boolean; stateText: string; onChange: (checked: boolean) => void }) {
  const t = useTranslations("compaction.automatic");
  return (
    <div className={styles.switchRow} data-testid="retention-automatic">
      <div className={styles.switchText}>
        <label htmlFor="retention-automatic-switch" className={styles.label} id="retention-automatic-label">
          {t("label")}
        </label>
        <span className={styles.muted} id="retention-automatic-state">
          {props.stateText}
        </span>
      </div>
      <button
        id="retention-automatic-switch"
        type="button"
        role="switch"
        className={styles.switch}
        aria-checked={props.checked}
        aria-describedby="retention-automatic-state"
        onClick={() => props.onChange(!props.checked)}
      >
        <span className={styles.switchThumb} aria-hidden="true" />
      </button>
    </div>
  );
}
