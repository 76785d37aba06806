"use client";
// "Automatic compaction" with its switch beside the label. Turning it off is
// always possible, whatever else is going on. Other scheduled jobs (the
// daily checkpoint cleanup, thread expiry) reuse it with their own id,
// label and test id.
import { useTranslations } from "next-intl";
import styles from "./compaction-card.module.css";

export function AutomaticSwitch(props: {
  checked: boolean;
  stateText: string;
  onChange: (checked: boolean) => void;
  /** Prefix of the element ids (default "retention-automatic"); unique per page. */
  idPrefix?: string;
  label?: string;
  testId?: string;
  /** Saving: the switch says so and ignores presses, but stays enabled (a disabled button drops keyboard focus). */
  busy?: boolean;
}) {
  const t = useTranslations("compaction.automatic");
  const id = props.idPrefix ?? "retention-automatic";
  return (
    <div className={styles.switchRow} data-testid={props.testId ?? "retention-automatic"}>
      <div className={styles.switchText}>
        <label htmlFor={`${id}-switch`} className={styles.label} id={`${id}-label`}>
          {props.label ?? t("label")}
        </label>
        <span className={styles.muted} id={`${id}-state`}>
          {props.stateText}
        </span>
      </div>
      <button
        id={`${id}-switch`}
        type="button"
        role="switch"
        className={styles.switch}
        aria-checked={props.checked}
        aria-describedby={`${id}-state`}
        aria-busy={props.busy}
        onClick={() => {
          if (!props.busy) props.onChange(!props.checked);
        }}
      >
        <span className={styles.switchThumb} aria-hidden="true" />
      </button>
    </div>
  );
}
