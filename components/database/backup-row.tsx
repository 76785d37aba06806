"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { databaseBackupUrl, type BackupEntry, type RestoreResult } from "@/lib/database/api";
import { useDeleteBackup } from "@/lib/database/client/use-delete-backup";
import { formatBytes, formatDateTime } from "@/lib/i18n/format";
import { ApiError } from "@/lib/query/fetch-json";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { ErrorSummary } from "./error-summary";
import { BackupDeleteConsequences } from "./backup-delete-consequences";
import { PinnedDeletePanel } from "./pinned-delete-panel";
import { RestorePanel } from "./restore-panel";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

export type OpenPanel = { name: string; mode: "delete" | "restore" } | null;

type Props = {
  backup: BackupEntry;
  /** The other backups, newest first: what is left once this one is deleted. */
  others: readonly BackupEntry[];
  isAdmin: boolean;
  open: OpenPanel;
  onOpen: (panel: OpenPanel) => void;
  onRestored: (result: RestoreResult) => void;
};

function DeletePanel({ backup, others, onClose }: { backup: BackupEntry; others: readonly BackupEntry[]; onClose: () => void }) {
  const { name } = backup;
  const pinned = backup.pinned === true;
  const t = useTranslations("databaseCards.backups");
  const errorMessage = useErrorMessage();
  const remove = useDeleteBackup();
  // Pinned since the list was read: the server's 409 asks for the typed confirmation.
  const pinnedNow = pinned || (remove.error instanceof ApiError && remove.error.code === "backup_pinned");
  if (pinnedNow) return <PinnedDeletePanel backup={{ ...backup, pinned: true }} others={others} onClose={onClose} />;
  return (
    <div className={styles.panel} data-testid="delete-confirm">
      <p>{t("deleteQuestion", { name })}</p>
      <BackupDeleteConsequences backup={backup} others={others} />
      {remove.isError && <ErrorSummary title={t("deleteFailed")} message={errorMessage(remove.error)} error={remove.error} focusOnMount />}
      <div className={styles.cardActions}>
        <button
          type="button"
          className={styles.buttonDanger}
          onClick={() => remove.mutate(name, { onSuccess: onClose })}
          disabled={remove.isPending}
          aria-busy={remove.isPending}
          data-testid="delete-confirm-button"
        >
          {remove.isPending ? t("deleting") : t("deleteConfirm")}
        </button>
        <button type="button" className={styles.button} onClick={onClose} disabled={remove.isPending}>
          {t("cancel")}
        </button>
      </div>
    </div>
  );
}

export function BackupRow({ backup, others, isAdmin, open, onOpen, onRestored }: Props) {
  const t = useTranslations("databaseCards.backups");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const createdMs = parseRfc3339(backup.createdAt);
  const mode = open?.name === backup.name ? open.mode : null;
  const toggle = (next: "delete" | "restore") => onOpen(mode === next ? null : { name: backup.name, mode: next });
  return (
    <>
      <tr data-testid="backup-row" data-name={backup.name}>
        <td data-label={t("name")} className={styles.mono}>
          <span className={styles.nameCell}>
            <span>{backup.name}</span>
            {backup.pinned && (
              <span className={styles.pinnedBadge} data-tone="info" data-testid="backup-pinned">
                {t("pinnedBadge")}
              </span>
            )}
          </span>
        </td>
        <td data-label={t("size")} className={styles.num}>
          {formatBytes(backup.sizeBytes, locale)}
        </td>
        <td data-label={t("createdAt")}>{createdMs === null ? backup.createdAt : formatDateTime(createdMs, locale, timeZone)}</td>
        {isAdmin && (
          <td data-label="">
            <div className={styles.rowActions}>
              <a className={styles.button} href={databaseBackupUrl(backup.name)} download={backup.name} data-testid="backup-download" aria-label={t("downloadNamed", { name: backup.name })}>
                {t("download")}
              </a>
              <button type="button" className={styles.button} aria-expanded={mode === "restore"} onClick={() => toggle("restore")} data-testid="backup-restore" aria-label={t("restoreNamed", { name: backup.name })}>
                {t("restore")}
              </button>
              <button type="button" className={styles.button} aria-expanded={mode === "delete"} onClick={() => toggle("delete")} data-testid="backup-delete" aria-label={t("deleteNamed", { name: backup.name })}>
                {t("delete")}
              </button>
            </div>
          </td>
        )}
      </tr>
      {mode && (
        <tr className={styles.panelRow}>
          <td colSpan={4} data-label="">
            {mode === "delete" ? (
              <DeletePanel backup={backup} others={others} onClose={() => onOpen(null)} />
            ) : (
              <RestorePanel name={backup.name} onClose={() => onOpen(null)} onRestored={onRestored} />
            )}
          </td>
        </tr>
      )}
    </>
  );
}
