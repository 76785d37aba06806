"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useTranslations } from "next-intl";
import type { CheckpointStorageStatus } from "@/lib/checkpoints/api";
import { useCheckpointStorage } from "@/lib/checkpoints/client/use-checkpoint-storage";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { Card } from "@/components/ui/card";
import { CheckpointActions } from "./checkpoint-actions";
import { LargestThreads } from "./largest-threads";
import { OperationResult } from "./operation-result";
import { TableUsageTable } from "./table-usage";
import styles from "./checkpoint-storage-card.module.css";

function Facts({ status }: { status: CheckpointStorageStatus }) {
  const t = useTranslations("checkpoints.card");
  return (
    <>
      <dl className={styles.facts} data-testid="checkpoint-mode">
        <div className={styles.fact}>
          <dt>{t("mode")}</dt>
          <dd>{status.mode === "delta" ? t("modeDelta") : status.mode === "full" ? t("modeFull") : t("unknown")}</dd>
        </div>
        <div className={styles.fact}>
          <dt>{t("frequency")}</dt>
          <dd>{status.snapshotFrequency === null ? t("unknown") : t("frequencyValue", { count: status.snapshotFrequency })}</dd>
        </div>
      </dl>
      <p className={styles.muted}>{t("restartRequired")}</p>
    </>
  );
}

function Body({ status, isAdmin }: { status: CheckpointStorageStatus; isAdmin: boolean }) {
  const t = useTranslations("checkpoints.card");
  const empty = status.tables !== null && status.tables.checkpoints.rows === 0 && status.tables.writes.rows === 0;
  return (
    <>
      <Facts status={status} />
      {!status.supported && <p className={styles.notice}>{t("unsupported")}</p>}
      {status.supported && status.tables && (empty ? <p className={styles.muted} data-testid="checkpoint-empty">{t("empty")}</p> : <TableUsageTable tables={status.tables} />)}
      {status.supported && <LargestThreads threads={status.largestThreads} />}
      {status.supported && <CheckpointActions status={status} isAdmin={isAdmin} />}
      {status.lastResultMalformed && <p className={styles.notice}>{t("resultMalformed")}</p>}
      {status.lastResult ? <OperationResult result={status.lastResult} /> : status.supported && <p className={styles.muted}>{t("noResult")}</p>}
    </>
  );
}

/** Agent checkpoint storage: mode, table usage, largest threads, analysis and cleanup. */
export function CheckpointStorageCard({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("checkpoints.card");
  const errorText = useErrorMessage("checkpoints");
  const query = useCheckpointStorage();
  return (
    <Card classes={styles} titleId="checkpoint-card-title" title={t("title")} header={<p className={styles.muted}>{t("description")}</p>} busy={query.isFetching} testId="checkpoint-storage-card">
      {query.isPending && <LoadingPlaceholder label={t("loading")} />}
      {query.isError && (
        <div className={styles.error} role="alert" data-testid="checkpoint-error">
          <p>{t("loadFailed")}</p>
          <p>{errorText(query.error)}</p>
          <div>
            <button type="button" className={styles.button} onClick={() => query.refetch()}>
              {t("retry")}
            </button>
          </div>
        </div>
      )}
      {query.data && <Body status={query.data} isAdmin={isAdmin} />}
    </Card>
  );
}
