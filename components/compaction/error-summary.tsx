"use client";
// A focusable inline error summary. Focus moves to it when a different error
// appears (not on every background poll that repeats the same one). Any HTTP
// status is shown as it came, 503 included: the card never hides it.
import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import type { CompactionError } from "@/lib/compaction/client/errors";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./compaction-card.module.css";

export function errorKey(error: CompactionError | null): string {
  return error ? `${error.channel}:${error.action ?? ""}:${error.status}:${error.code}` : "";
}

export function ErrorSummary(props: { error: CompactionError; onRefresh: () => void; onDismiss: () => void }) {
  const { error, onRefresh, onDismiss } = props;
  const t = useTranslations("compaction.errors");
  const errorMessage = useErrorMessage("compaction");
  const ref = useRef<HTMLDivElement>(null);
  const key = errorKey(error);
  useEffect(() => {
    ref.current?.focus();
  }, [key]);
  const title = error.channel === "status" ? t("statusTitle") : t(`actionTitle.${error.action ?? "save"}`);
  const detail = errorMessage(error.code);
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
