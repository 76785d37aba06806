"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useLocale, useTranslations } from "next-intl";
import type { DatabaseStats } from "@/lib/database/api";
import { useDatabaseStats } from "@/lib/database/client/use-database-stats";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { ErrorSummary } from "./error-summary";
import { DatabaseCard, RefreshButton } from "./card-frame";
import { TableSizes } from "./table-sizes";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { VacuumPanel } from "./vacuum-panel";
import { StorageHistory } from "./storage-history";
import { UnverifiableLockPanel } from "./unverifiable-lock-panel";
import styles from "./cards.module.css";

function Metrics({ stats }: { stats: DatabaseStats }) {
  const t = useTranslations("databaseCards.stats");
  const locale = useLocale();
  return (
    <dl className={styles.metrics} data-testid="database-metrics">
      <div className={styles.metric}>
        <dt>{t("fileSize")}</dt>
        <dd data-testid="stat-file-size">{formatBytes(stats.fileBytes, locale)}</dd>
      </div>
      <div className={styles.metric}>
        <dt>{t("walSize")}</dt>
        <dd data-testid="stat-wal-size">{formatBytes(stats.walBytes, locale)}</dd>
      </div>
      <div className={styles.metric}>
        <dt>{t("freePages")}</dt>
        <dd data-testid="stat-free-pages">
          {formatCount(stats.freePages, locale)}{" "}
          <span className={styles.metricNote}>{t("freeBytes", { size: formatBytes(stats.freeBytes, locale) })}</span>
        </dd>
      </div>
      <div className={styles.metric}>
        <dt>{t("pages")}</dt>
        <dd>
          {formatCount(stats.pageCount, locale)}{" "}
          <span className={styles.metricNote}>{t("pageSize", { size: formatBytes(stats.pageSize, locale) })}</span>
        </dd>
      </div>
    </dl>
  );
}

/** Storage overview: sizes from metadata only (the server never scans message bodies for it). */
export function StatsCard({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("databaseCards.stats");
  const tCommon = useTranslations("databaseCards.common");
  const errorMessage = useErrorMessage();
  const query = useDatabaseStats();
  const data = query.data;
  return (
    <DatabaseCard titleId="stats-card-title" title={t("title")} testId="stats-card" busy={query.isFetching} header={<RefreshButton query={query} />}>
      {query.isPending && <LoadingPlaceholder label={tCommon("loading")} />}
      {query.isError && (
        <ErrorSummary title={t("loadFailed")} message={errorMessage(query.error)} error={query.error} testId="stats-error" />
      )}
      {data?.capability === "unsupported" && <p className={styles.warning}>{t("unsupported")}</p>}
      {data?.capability === "supported" && (
        <>
          {data.unverifiableLock && <UnverifiableLockPanel lock={data.unverifiableLock} isAdmin={isAdmin} />}
          {data.maintenanceBusy && !data.unverifiableLock && (
            <p className={styles.warning} role="status" data-testid="stats-busy">
              {t("busy", { operation: data.maintenanceBusy })}
            </p>
          )}
          <Metrics stats={data} />
          <TableSizes tables={data.tables} />
          <hr className={styles.divider} />
          <StorageHistory />
        </>
      )}
      {data?.capability !== "unsupported" && (
        <>
          <hr className={styles.divider} />
          <VacuumPanel isAdmin={isAdmin} />
        </>
      )}
    </DatabaseCard>
  );
}
