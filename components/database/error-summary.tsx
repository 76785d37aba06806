"use client";

import { useEffect, useRef } from "react";
import { isApiError } from "@/lib/query/fetch-json";
import styles from "./cards.module.css";

/** The code and status of a failed request, for display (never hidden, 503s included). */
export function errorCodeOf(error: unknown): { code: string; status: number | null } {
  if (isApiError(error)) return { code: error.code, status: error.status || null };
  return { code: "unknown_error", status: null };
}

/**
 * A focusable inline error: focus moves to it when it appears (when asked)
 * so keyboard and screen-reader users hear it. The server's code is shown
 * so an operator can tell a busy database (503) from a refusal.
 */
export function ErrorSummary(props: { title: string; message: string; error: unknown; focusOnMount?: boolean; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const { code, status } = errorCodeOf(props.error);
  useEffect(() => {
    if (props.focusOnMount) ref.current?.focus();
  }, [props.focusOnMount, props.error]);
  return (
    <div ref={ref} className={styles.error} role="alert" tabIndex={-1} data-testid={props.testId} data-error-code={code}>
      <strong>{props.title}</strong>
      <span>{props.message}</span>
      <span className={styles.errorCode}>{status ? `${status} · ${code}` : code}</span>
    </div>
  );
}
