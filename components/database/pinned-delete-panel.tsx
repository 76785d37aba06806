"use client";

import { useTranslations } from "next-intl";
import { useId, useState, type FormEvent } from "react";
import type { BackupEntry } from "@/lib/database/api";
import { useDeletePinnedBackup } from "@/lib/database/client/use-delete-backup";
import { BackupDeleteConsequences } from "./backup-delete-consequences";
import { ErrorSummary } from "./error-summary";
import { TypedNameField } from "./typed-name-field";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

/**
 * Deleting the compaction preparation's backup: its exact name must be typed,
 * and the warning says compaction then needs a new preparation. The server
 * checks the typed name again (409 backup_pinned otherwise).
 */
export function PinnedDeletePanel(props: { backup: BackupEntry; others: readonly BackupEntry[]; onClose: () => void }) {
  const name = props.backup.name;
  const t = useTranslations("databaseCards.backups");
  const errorMessage = useErrorMessage();
  const remove = useDeletePinnedBackup();
  const [typed, setTyped] = useState("");
  const warningId = useId();
  const matches = typed === name;
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!matches) return;
    remove.mutate({ name: name, confirm: typed }, { onSuccess: props.onClose });
  }
  return (
    <form className={styles.pinnedPanel} onSubmit={onSubmit} data-testid="pinned-delete-confirm" aria-describedby={warningId}>
      <div className={styles.warning} id={warningId}>
        <strong>{t("pinnedDeleteTitle")}</strong>
        <BackupDeleteConsequences backup={props.backup} others={props.others} />
      </div>
      {remove.isError && <ErrorSummary title={t("deleteFailed")} message={errorMessage(remove.error)} error={remove.error} focusOnMount />}
      <div className={styles.inlineForm}>
        <TypedNameField label={t("pinnedTypeName")} name={name} value={typed} onChange={setTyped} autoFocus testId="pinned-delete-input" />
        <button type="submit" className={styles.buttonDanger} disabled={!matches || remove.isPending} aria-busy={remove.isPending} data-testid="pinned-delete-button">
          {remove.isPending ? t("deleting") : t("deleteConfirm")}
        </button>
        <button type="button" className={styles.button} onClick={props.onClose} disabled={remove.isPending}>
          {t("cancel")}
        </button>
      </div>
    </form>
  );
}
