import type { ButtonHTMLAttributes, ReactNode } from "react";

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type" | "children" | "disabled"> & {
  busy: boolean;
  /** Unavailable without being busy (e.g. nothing loaded yet to refresh). */
  disabled?: boolean;
  label: ReactNode;
  busyLabel: ReactNode;
  "data-testid"?: string;
};

/** A button that is disabled and marked aria-busy while its action runs, with a label saying so. */
export function BusyButton({ busy, label, busyLabel, disabled = false, ...rest }: Props) {
  return (
    <button type="button" {...rest} disabled={busy || disabled} aria-busy={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}
