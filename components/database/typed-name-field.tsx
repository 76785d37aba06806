"use client";

import { useId } from "react";
import styles from "./cards.module.css";

/**
 * The field of a typed confirmation: the exact name to type is shown beside
 * its label (and describes the input), so a screen reader hears it too.
 */
export function TypedNameField(props: { label: string; name: string; value: string; onChange: (value: string) => void; autoFocus?: boolean; testId: string }) {
  const inputId = useId();
  const hintId = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={inputId}>{props.label}</label>
      <span id={hintId} className={styles.mutedMono}>
        {props.name}
      </span>
      <input
        id={inputId}
        className={`${styles.input} ${styles.mono}`}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        autoComplete="off"
        autoCapitalize="off"
        spellCheck={false}
        aria-describedby={hintId}
        autoFocus={props.autoFocus}
        data-testid={props.testId}
      />
    </div>
  );
}
