"use client";

import { useLocale, useNow, useTimeZone, useTranslations } from "next-intl";
import { useState } from "react";
import type { Account, AccountSession } from "@/lib/accounts/api";
import { deleteAccountSession, deleteAccountSessions } from "@/lib/accounts/client/fetchers";
import { useAccountAction } from "@/lib/accounts/client/use-account-action";
import { useAccountSessions } from "@/lib/accounts/client/use-account-sessions";
import { formatInstant, formatRelative } from "@/lib/i18n/format";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { BusyButton } from "@/components/ui/busy-button";
import { ErrorSummary } from "@/components/database/error-summary";
import cardStyles from "@/components/database/cards.module.css";
import { useAccountError } from "./use-account-error";
import styles from "./accounts.module.css";

function useWhen() {
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  const now = useNow({ updateInterval: 60_000 }).getTime();
  return {
    relative: (at: string) => {
      const ms = parseRfc3339(at);
      return ms === null ? at : formatRelative(ms, now, locale);
    },
    absolute: (at: string) => {
      const ms = parseRfc3339(at);
      return ms === null ? at : formatInstant(ms, locale, timeZone);
    },
  };
}

function SessionItem({ account, session }: { account: Account; session: AccountSession }) {
  const t = useTranslations("accounts.sessions");
  const tAccounts = useTranslations("accounts");
  const when = useWhen();
  const accountError = useAccountError();
  const end = useAccountAction(() => deleteAccountSession(account.id, session.id));
  const started = when.absolute(session.createdAt);
  return (
    <li className={styles.sessionItem} data-testid="account-session" data-current={session.current}>
      <div className={styles.sessionFacts}>
        <span className={styles.emailCell}>
          {session.client ?? t("unknownClient")}
          {session.current && (
            <span className={cardStyles.badge} data-tone="info">
              {t("current")}
            </span>
          )}
        </span>
        <span className={cardStyles.muted}>{t("started", { when: started })}</span>
        <span className={cardStyles.muted}>
          <time dateTime={session.lastActiveAt} title={when.absolute(session.lastActiveAt)}>
            {t("lastActive", { when: when.relative(session.lastActiveAt) })}
          </time>
          {" · "}
          <time dateTime={session.endsAt} title={when.absolute(session.endsAt)}>
            {t("ends", { when: when.relative(session.endsAt) })}
          </time>
        </span>
        {end.isError && <ErrorSummary title={tAccounts("failed")} message={accountError(end.error)} error={end.error} focusOnMount />}
      </div>
      <BusyButton
        className={cardStyles.button}
        busy={end.isPending}
        onClick={() => end.mutate(undefined)}
        label={t("end")}
        busyLabel={t("ending")}
        aria-label={end.isPending ? undefined : t("endNamed", { when: started })}
        data-testid="account-session-end"
      />
    </li>
  );
}

/** The account's live sessions: each can be ended, or all at once. */
export function AccountSessions({ account }: { account: Account }) {
  const t = useTranslations("accounts.sessions");
  const tAccounts = useTranslations("accounts");
  const tCommon = useTranslations("databaseCards.common");
  const accountError = useAccountError();
  const query = useAccountSessions(account.id, true);
  const endAll = useAccountAction(() => deleteAccountSessions(account.id));
  const [ended, setEnded] = useState<number | null>(null);
  const sessions = query.data?.sessions ?? [];
  return (
    <div className={styles.panelSection} aria-busy={query.isFetching}>
      <h3 className={cardStyles.subTitle}>{t("title")}</h3>
      {query.isPending && <div className={cardStyles.skeleton} role="status" aria-label={t("loading")} />}
      {query.isError && <ErrorSummary title={t("failed")} message={accountError(query.error)} error={query.error} testId="account-sessions-error" />}
      {query.isSuccess && sessions.length === 0 && (
        <p className={cardStyles.muted} data-testid="account-sessions-empty">
          {t("empty")}
        </p>
      )}
      {sessions.length > 0 && (
        <ul className={styles.sessionList} aria-label={t("listLabel", { email: account.email })} data-testid="account-sessions">
          {sessions.map((session) => (
            <SessionItem key={session.id} account={account} session={session} />
          ))}
        </ul>
      )}
      {ended !== null && (
        <p className={cardStyles.success} role="status" data-testid="account-sessions-ended">
          {t("ended", { count: ended })}
        </p>
      )}
      {endAll.isError && <ErrorSummary title={tAccounts("failed")} message={accountError(endAll.error)} error={endAll.error} focusOnMount />}
      {sessions.length > 1 && (
        <div className={cardStyles.cardActions}>
          <BusyButton
            className={cardStyles.buttonDanger}
            busy={endAll.isPending}
            onClick={() => endAll.mutate(undefined, { onSuccess: (result) => setEnded(result.endedSessions) })}
            label={t("endAll")}
            busyLabel={t("endingAll")}
            data-testid="account-sessions-end-all"
          />
          <span className={cardStyles.muted} hidden={!query.isFetching || query.isPending}>
            {tCommon("refreshing")}
          </span>
        </div>
      )}
    </div>
  );
}
