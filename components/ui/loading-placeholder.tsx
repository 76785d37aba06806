import styles from "./loading-placeholder.module.css";

/** A card's first-load placeholder: a status that says in words what is loading, never an empty box. */
export function LoadingPlaceholder({ label, testId }: { label: string; testId?: string }) {
  return (
    <div className={styles.placeholder} role="status" aria-label={label} data-loading="true" data-testid={testId}>
      <span className={styles.spinner} aria-hidden="true" />
      <span aria-hidden="true">{label}</span>
    </div>
  );
}
