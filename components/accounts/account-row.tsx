"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { Account } from "@/lib/accounts/api";
import { formatInstant, formatRelative } from "@/lib/i18n/format";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import cardStyles from "@/components/database/cards.module.css";
import { AccountPanel } from "./account-panel";
import styles from "./accounts.module.css";

type Props = { account: Account; isSelf: boolean; lastAdmin: boolean; open: boolean; onToggle: () => void; nowMs: number };

function LastActive({ at, nowMs }: { at: string | null; nowMs: number }) {
  const t = useTranslations("accounts");
  const locale = useLocale();
  const timeZone = useTimeZone() ?? "UTC";
  const ms = at === null ? null : parseRfc3339(at);
  if (at === null || ms === null) return <span className={cardStyles.muted}>{t("never")}</span>;
  return (
    <time dateTime={at} title={formatInstant(ms, locale, timeZone)}>
      {formatRelative(ms, nowMs, locale)}
    </time>
  );
}

/** One account: who, role, state and activity; "Manage" opens its panel below. */
export function AccountRow({ account, isSelf, lastAdmin, open, onToggle, nowMs }: Props) {
  const t = useTranslations("accounts");
  const panelId = `account-panel-${account.id}`;
  return (
    <>
      <tr data-testid="account-row" data-email={account.email} data-status={account.status}>
        <th scope="row" data-label={t("columns.account")} className={styles.rowHeader}>
          <span className={styles.emailCell}>
            <span>{account.email}</span>
            {isSelf && (
              <span className={cardStyles.badge} data-tone="info">
                {t("you")}
              </span>
            )}
            {account.status === "disabled" && (
              <span className={cardStyles.badge} data-tone="error" data-testid="account-disabled-badge">
                {t("status.disabled")}
              </span>
            )}
            {account.mustChangePassword && (
              <span className={cardStyles.badge} data-tone="warn" data-testid="account-must-change">
                {t("mustChange")}
              </span>
            )}
          </span>
        </th>
        <td data-label={t("columns.role")}>{t(`roles.${account.role}`)}</td>
        <td data-label={t("columns.lastActive")}>
          <LastActive at={account.lastActiveAt} nowMs={nowMs} />
        </td>
        <td data-label={t("columns.sessions")} className={cardStyles.num}>
          {t("openSessions", { count: account.liveSessions })}
        </td>
        <td data-label="">
          <div className={cardStyles.rowActions}>
            <button
              type="button"
              className={cardStyles.button}
              aria-expanded={open}
              aria-controls={open ? panelId : undefined}
              aria-label={t("manageNamed", { email: account.email })}
              onClick={onToggle}
              data-testid="account-manage"
            >
              {t("manage")}
            </button>
          </div>
        </td>
      </tr>
      {open && (
        <tr className={cardStyles.panelRow}>
          <td colSpan={5} data-label="">
            <AccountPanel id={panelId} account={account} isSelf={isSelf} lastAdmin={lastAdmin} />
          </td>
        </tr>
      )}
    </>
  );
}
