"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useLocale, useNow, useTimeZone, useTranslations } from "next-intl";
import { useId, useState } from "react";
import { AUDIT_KINDS, type AuditEntry, type AuditKind } from "@/lib/audit/api";
import { useAuditLog } from "@/lib/audit/client/use-audit-log";
import { formatInstant, formatRelative } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { BusyButton } from "@/components/ui/busy-button";
import { DatabaseCard, RefreshButton } from "@/components/database/card-frame";
import { ErrorSummary } from "@/components/database/error-summary";
import cardStyles from "@/components/database/cards.module.css";
import { AuditDetailLine } from "./audit-detail";
import styles from "./activity-card.module.css";

function useActorName() {
  const t = useTranslations("activity");
  return (entry: AuditEntry): string => {
    if (entry.actorEmail) return entry.actorEmail;
    if (entry.actor === "cli" || entry.actor === "system" || entry.actor === "unknown") return t(`actors.${entry.actor}`);
    return t("actors.removed", { id: entry.actor });
  };
}

function Entry({ entry, nowMs }: { entry: AuditEntry; nowMs: number }) {
  const t = useTranslations("activity");
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  const errorMessage = useErrorMessage();
  const actorName = useActorName();
  const ms = parseRfc3339(entry.at);
  return (
    <li className={cardStyles.logEntry} data-testid="activity-entry" data-kind={entry.kind} data-result={entry.result}>
      <div className={styles.entryHead}>
        <span className={styles.kind}>{t(`kinds.${entry.kind}`)}</span>
        <span className={cardStyles.badge} data-tone={entry.result === "failed" ? "error" : "info"}>
          {t(`results.${entry.result}`)}
        </span>
        <span className={`${styles.when} ${cardStyles.muted}`}>
          <time dateTime={entry.at}>{ms === null ? entry.at : formatInstant(ms, locale, timeZone)}</time>
          {ms !== null && <span>({formatRelative(ms, nowMs, locale)})</span>}
        </span>
      </div>
      <p className={cardStyles.muted}>{t("by", { who: actorName(entry) })}</p>
      <AuditDetailLine entry={entry} />
      {entry.result === "failed" && entry.errorCode && (
        <p className={cardStyles.error}>{t("failure", { message: errorMessage(entry.errorCode), code: entry.errorCode })}</p>
      )}
    </li>
  );
}

/** Who did what on this server, newest first; admins only (the API answers viewers 403). */
export function ActivityCard() {
  const t = useTranslations("activity");
  const tCommon = useTranslations("databaseCards.common");
  const errorMessage = useErrorMessage();
  const [kind, setKind] = useState<AuditKind | null>(null);
  const query = useAuditLog(kind);
  const now = useNow({ updateInterval: 60_000 });
  const selectId = useId();
  const entries = query.data?.pages.flatMap((page) => page.entries) ?? [];
  const retentionDays = query.data?.pages[0]?.retentionDays ?? 180;
  return (
    <DatabaseCard titleId="activity-card-title" title={t("title")} testId="activity-card" header={<RefreshButton query={query} testId="activity-refresh" />}>
      <p className={cardStyles.muted}>{t("description", { days: retentionDays })}</p>
      <div className={cardStyles.filterRow}>
        <div className={cardStyles.field}>
          <label htmlFor={selectId}>{t("filter")}</label>
          <select
            id={selectId}
            className={cardStyles.select}
            value={kind ?? ""}
            onChange={(event) => setKind(event.target.value === "" ? null : (event.target.value as AuditKind))}
            data-testid="activity-kind"
          >
            <option value="">{t("allKinds")}</option>
            {AUDIT_KINDS.map((option) => (
              <option key={option} value={option}>
                {t(`kinds.${option}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {query.isPending && <LoadingPlaceholder label={tCommon("loading")} />}
      {query.isError && <ErrorSummary title={t("loadFailed")} message={errorMessage(query.error)} error={query.error} testId="activity-error" />}
      {query.isSuccess && entries.length === 0 && (
        <p className={cardStyles.muted} data-testid="activity-empty">
          {kind ? t("emptyKind") : t("empty")}
        </p>
      )}
      {entries.length > 0 && (
        <ol className={cardStyles.logList} data-testid="activity-list" aria-label={t("listLabel", { count: entries.length })} tabIndex={0}>
          {entries.map((entry) => (
            <Entry key={entry.id} entry={entry} nowMs={now.getTime()} />
          ))}
        </ol>
      )}
      {query.hasNextPage && (
        <div className={styles.footer}>
          <BusyButton
            className={cardStyles.button}
            busy={query.isFetchingNextPage}
            onClick={() => void query.fetchNextPage()}
            label={t("loadOlder")}
            busyLabel={t("loadingOlder")}
            data-testid="activity-older"
          />
        </div>
      )}
    </DatabaseCard>
  );
}
