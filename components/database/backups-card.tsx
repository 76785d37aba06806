"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import type { RestoreResult } from "@/lib/database/api";
import { useBackups } from "@/lib/database/client/use-backups";
import { useCreateBackup } from "@/lib/database/client/use-create-backup";
import { BackupRow, type OpenPanel } from "./backup-row";
import { ErrorSummary } from "./error-summary";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

/**
 * Manual backups: list for every member; create, download, delete and
 * restore for admins. Confirmations open inline under their row (no nested
 * dialogs); viewers get the list without any dead controls.
 */
export function BackupsCard({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("databaseCards.backups");
  const tCommon = useTranslations("databaseCards.common");
  const errorMessage = useErrorMessage();
  const query = useBackups();
  const create = useCreateBackup();
  const [open, setOpen] = useState<OpenPanel>(null);
  const [restored, setRestored] = useState<RestoreResult | null>(null);
  const backups = query.data?.backups ?? [];
  return (
    <article className={styles.card} aria-labelledby="backups-card-title" data-testid="backups-card">
      <div className={styles.cardHeader}>
        <h3 id="backups-card-title" className={styles.cardTitle}>
          {t("title")}
        </h3>
        <div className={styles.cardActions}>
          <button type="button" className={styles.button} onClick={() => query.refetch()} disabled={query.isFetching} aria-busy={query.isFetching}>
            {query.isFetching ? tCommon("refreshing") : tCommon("refresh")}
          </button>
          {isAdmin && query.data?.capability === "supported" && (
            <button
              type="button"
              className={styles.buttonPrimary}
              onClick={() => create.mutate()}
              disabled={create.isPending}
              aria-busy={create.isPending}
              data-testid="backup-create"
            >
              {create.isPending ? t("creating") : t("create")}
            </button>
          )}
        </div>
      </div>
      <p className={styles.muted}>
        {t("description", { keep: query.data?.keep ?? 0 })} {!isAdmin && t("viewerNote")}
      </p>
      {restored && (
        <div className={styles.warning} role="alert" tabIndex={-1} data-testid="restore-restart-required">
          <strong>{t("restoredTitle", { name: restored.restored })}</strong>
          <span>{t("restartRequired")}</span>
        </div>
      )}
      {create.isError && <ErrorSummary title={t("createFailed")} message={errorMessage(create.error)} error={create.error} focusOnMount testId="backup-create-error" />}
      {create.isSuccess && (
        <p className={styles.success} role="status" data-testid="backup-created">
          {t("created", { name: create.data.name })}
        </p>
      )}
      {query.isPending && <div className={styles.skeleton} role="status" aria-label={tCommon("loading")} />}
      {query.isError && <ErrorSummary title={t("loadFailed")} message={errorMessage(query.error)} error={query.error} testId="backups-error" />}
      {query.data?.capability === "unsupported" && <p className={styles.warning}>{t("unsupported")}</p>}
      {query.isSuccess && query.data.capability === "supported" && backups.length === 0 && (
        <p className={styles.muted} data-testid="backups-empty">
          {t("empty")}
        </p>
      )}
      {backups.length > 0 && (
        <div className={styles.tableWrap}>
          <table className={`${styles.table} ${styles.stackTable}`} data-testid="backups-table">
            <thead>
              <tr>
                <th scope="col">{t("name")}</th>
                <th scope="col" className={styles.num}>
                  {t("size")}
                </th>
                <th scope="col">{t("createdAt")}</th>
                {isAdmin && (
                  <th scope="col" className={styles.num}>
                    {t("actions")}
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {backups.map((backup) => (
                <BackupRow
                  key={backup.name}
                  backup={backup}
                  isAdmin={isAdmin}
                  open={open}
                  onOpen={setOpen}
                  onRestored={(result) => {
                    setOpen(null);
                    setRestored(result);
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
