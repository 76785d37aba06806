"use client";
// The one confirmation of a change that removes data: a modal <dialog>
// (focus stays inside, Escape cancels, focus returns to the opener when it
// closes) that states the consequence before the administrator commits.
// Never nested: everything a confirmation needs (an analysis to run, a
// window to accept) happens inside this one dialog. Cancel is focused first.
import { useEffect, useId, useRef, type ReactNode } from "react";
import styles from "./confirm-dialog.module.css";

type Props = {
  open: boolean;
  title: string;
  /** The consequence: what is removed, when, what holds it, how it comes back. */
  children: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  cancelLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  confirmDisabled?: boolean;
  /** An error of the confirmed action, shown inside the dialog. */
  error?: ReactNode;
  tone?: "danger" | "primary";
  testId: string;
};

export function ConfirmDialog(props: Props) {
  const { open, onCancel } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // jsdom has no modal dialogs: the attribute stands in for showModal there.
    if (open && !dialog.open) {
      if (typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
      // Cancel, explicitly: showModal would focus the first focusable area,
      // which on a phone is the scrolling body of a tall sheet, and React's
      // autoFocus ran before the dialog was shown.
      cancelRef.current?.focus();
    }
    if (!open && dialog.open) {
      if (typeof dialog.close === "function") dialog.close();
      else dialog.removeAttribute("open");
    }
  }, [open]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // Escape: the browser would close the dialog itself; the owner decides instead.
    const onNativeCancel = (event: Event) => {
      event.preventDefault();
      onCancel();
    };
    dialog.addEventListener("cancel", onNativeCancel);
    return () => dialog.removeEventListener("cancel", onNativeCancel);
  }, [onCancel]);

  return (
    <dialog ref={ref} className={styles.dialog} aria-labelledby={titleId} aria-describedby={bodyId} data-testid={props.testId}>
      {open && (
        <div className={styles.frame}>
          <h2 id={titleId} className={styles.title}>
            {props.title}
          </h2>
          {/* A tall consequence scrolls on a phone: the body is a keyboard stop so it scrolls by keys too (axe scrollable-region-focusable). */}
          <div id={bodyId} className={styles.body} tabIndex={0} role="region" aria-labelledby={titleId}>
            {props.children}
          </div>
          {props.error && (
            <div className={styles.error} role="alert">
              {props.error}
            </div>
          )}
          <div className={styles.actions}>
            <button ref={cancelRef} type="button" className={styles.cancel} onClick={onCancel} data-testid={`${props.testId}-cancel`}>
              {props.cancelLabel}
            </button>
            <button
              type="button"
              className={props.tone === "primary" ? styles.primary : styles.danger}
              onClick={props.onConfirm}
              disabled={props.busy || props.confirmDisabled}
              aria-busy={props.busy}
              data-testid={`${props.testId}-confirm`}
            >
              {props.busy ? props.busyLabel : props.confirmLabel}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}

/** The consequence as labelled lines: what, from which analysis, when, backup, undo. */
export function Consequences({ items, testId }: { items: { key: string; label: string; value: ReactNode }[]; testId?: string }) {
  return (
    <dl className={styles.consequences} data-testid={testId}>
      {items.map((item) => (
        <div key={item.key} className={styles.consequence} data-consequence={item.key}>
          <dt>{item.label}</dt>
          <dd>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}
