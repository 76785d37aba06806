"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import type { RestoreResult } from "@/lib/database/api";
import { useBackups } from "@/lib/database/client/use-backups";
import { useCreateBackup } from "@/lib/database/client/use-create-backup";
import { BusyButton } from "@/components/ui/busy-button";
import { TableHead } from "@/components/ui/data-table";
import { BackupRow, type OpenPanel } from "./backup-row";
import { DatabaseCard, RefreshButton } from "./card-frame";
import { ErrorSummary } from "./error-summary";
import { joinSentences } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import styles from "./cards.module.css";

/**
 * Manual backups: list for every member; create, download, delete and
 * restore for admins. Confirmations open inline under their row (no nested
 * dialogs); viewers get the list without any dead controls.
 */
export function BackupsCard({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("databaseCards.backups");
  const locale = useLocale();
  const tCommon = useTranslations("databaseCards.common");
  const errorMessage = useErrorMessage();
  const query = useBackups();
  const create = useCreateBackup();
  const [open, setOpen] = useState<OpenPanel>(null);
  const [restored, setRestored] = useState<RestoreResult | null>(null);
  const backups = query.data?.backups ?? [];
  return (
    <DatabaseCard
      titleId="backups-card-title"
      title={t("title")}
      testId="backups-card"
      header={
        <div className={styles.cardActions}>
          <RefreshButton query={query} />
          {isAdmin && query.data?.capability === "supported" && (
            <BusyButton className={styles.buttonPrimary} onClick={() => create.mutate()} busy={create.isPending} label={t("create")} busyLabel={t("creating")} data-testid="backup-create" />
          )}
        </div>
      }
    >
      <p className={styles.muted}>
        {/* How many are kept is the server's setting: said once it has answered, never as a 0 while loading. */}
        {joinSentences([t("description"), query.data && t("keepNote", { keep: query.data.keep }), !isAdmin && t("viewerNote")], locale)}
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
      {query.isPending && <LoadingPlaceholder label={tCommon("loading")} />}
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
            <TableHead
              classes={styles}
              cells={[
                { key: "name", header: t("name") },
                { key: "size", header: t("size"), numeric: true },
                { key: "createdAt", header: t("createdAt") },
                ...(isAdmin ? [{ key: "actions", header: t("actions"), numeric: true }] : []),
              ]}
            />
            <tbody>
              {backups.map((backup) => (
                <BackupRow
                  key={backup.name}
                  backup={backup}
                  others={backups.filter((other) => other.name !== backup.name)}
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
    </DatabaseCard>
  );
}
