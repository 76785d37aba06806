"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import type { RestoreResult } from "@/lib/database/api";
import { useRestoreBackup } from "@/lib/database/client/use-restore-backup";
import { ErrorSummary } from "./error-summary";
import { TypedNameField } from "./typed-name-field";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

/** Restore needs the backup's exact name typed in; the server checks it again. */
export function RestorePanel(props: { name: string; onClose: () => void; onRestored: (result: RestoreResult) => void }) {
  const t = useTranslations("databaseCards.backups");
  const errorMessage = useErrorMessage();
  const restore = useRestoreBackup();
  const [typed, setTyped] = useState("");
  const matches = typed === props.name;
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!matches) return;
    restore.mutate({ name: props.name, confirm: typed }, { onSuccess: props.onRestored });
  }
  return (
    <form className={styles.panel} onSubmit={onSubmit} data-testid="restore-confirm">
      <div className={styles.warning}>
        <strong>{t("restoreWarningTitle")}</strong>
        <span>{t("restoreWarning")}</span>
      </div>
      {restore.isError && <ErrorSummary title={t("restoreFailed")} message={errorMessage(restore.error)} error={restore.error} focusOnMount />}
      <div className={styles.inlineForm}>
        <TypedNameField label={t("typeName")} name={props.name} value={typed} onChange={setTyped} testId="restore-input" />
        <button type="submit" className={styles.buttonDanger} disabled={!matches || restore.isPending} aria-busy={restore.isPending} data-testid="restore-confirm-button">
          {restore.isPending ? t("restoring") : t("restoreConfirm")}
        </button>
        <button type="button" className={styles.button} onClick={props.onClose} disabled={restore.isPending}>
          {t("cancel")}
        </button>
      </div>
    </form>
  );
}
