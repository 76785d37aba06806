"use client";
// An expandable section that looks expandable: a full-width button with a
// chevron that turns when open, aria-expanded and aria-controls on it, and
// the panel rendered only while open (a 100-turn thread mounts one table,
// not a hundred). Keyboard: Tab reaches the button, Enter or Space toggles.
import { useId, useState, type ReactNode } from "react";
import styles from "./disclosure.module.css";

type Props = {
  summary: ReactNode;
  children: ReactNode;
  testId?: string;
  /** The frame (border, padding); the button and chevron are styled here. */
  className?: string;
  summaryClassName?: string;
  defaultOpen?: boolean;
};

export function Chevron() {
  return (
    <svg className={styles.chevron} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <path d="M6 3.5 10.5 8 6 12.5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function Disclosure({ summary, children, testId, className, summaryClassName, defaultOpen = false }: Props) {
  const [open, setOpen] = useState(defaultOpen);
  const panelId = useId();
  return (
    <div className={className} data-testid={testId} data-open={open ? "true" : "false"}>
      <button
        type="button"
        className={[styles.toggle, summaryClassName].filter(Boolean).join(" ")}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((value) => !value)}
        data-testid={testId ? `${testId}-toggle` : undefined}
      >
        <Chevron />
        <span className={styles.label}>{summary}</span>
      </button>
      <div id={panelId} hidden={!open} className={styles.panel}>
        {open && children}
      </div>
    </div>
  );
}
