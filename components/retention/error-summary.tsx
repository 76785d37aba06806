"use client";
// A focusable inline error summary. Focus moves to it when a different error
// appears (not on every background poll that repeats the same one). Any HTTP
// status is shown as it came, 503 included: the card never hides it.
import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import type { RetentionError } from "@/lib/retention/client/errors";
import styles from "./retention-card.module.css";

const KNOWN_CODES = [
  "conflict",
  "operation_active",
  "cleanup_not_approved",
  "backup_choice_required",
  "invalid_request",
  "forbidden",
  "cross_origin",
  "unauthenticated",
  "unsupported_engine",
  "maintenance_busy",
  "settings_malformed",
  "network_error",
  "internal_error",
  "too_many_requests",
] as const;
const isKnownCode = (code: string): code is (typeof KNOWN_CODES)[number] => (KNOWN_CODES as readonly string[]).includes(code);

export function errorKey(error: RetentionError | null): string {
  return error ? `${error.channel}:${error.action ?? ""}:${error.status}:${error.code}` : "";
}

export function ErrorSummary(props: { error: RetentionError; onRefresh: () => void; onDismiss: () => void }) {
  const { error, onRefresh, onDismiss } = props;
  const t = useTranslations("retention.errors");
  const ref = useRef<HTMLDivElement>(null);
  const key = errorKey(error);
  useEffect(() => {
    ref.current?.focus();
  }, [key]);
  const title = error.channel === "status" ? t("statusTitle") : t(`actionTitle.${error.action ?? "save"}`);
  const code = error.code;
  const detail = isKnownCode(code) ? t(`codes.${code}`) : t("codes.other", { status: error.status, code });
  return (
    <div ref={ref} className={styles.errorSummary} role="alert" tabIndex={-1} data-testid={`retention-error-${error.channel}`} data-status={error.status}>
      <p className={styles.errorTitle}>{title}</p>
      <p>{detail}</p>
      {error.status > 0 && <p className={styles.muted}>{t("httpStatus", { status: error.status })}</p>}
      <div className={styles.inlineActions}>
        <button type="button" className={styles.secondaryButton} onClick={onRefresh}>
          {t("refresh")}
        </button>
        {error.channel === "action" && (
          <button type="button" className={styles.secondaryButton} onClick={onDismiss}>
            {t("dismiss")}
          </button>
        )}
      </div>
    </div>
  );
}
