"use client";

import { useNow, useTranslations } from "next-intl";
import { useState } from "react";
import type { AccountChange } from "@/lib/accounts/api";
import { useAccounts } from "@/lib/accounts/client/use-accounts";
import { TableHead } from "@/components/ui/data-table";
import { DatabaseCard, RefreshButton } from "@/components/database/card-frame";
import { ErrorSummary } from "@/components/database/error-summary";
import cardStyles from "@/components/database/cards.module.css";
import { AccountRow } from "./account-row";
import { AddAccountPanel } from "./add-account-panel";
import { useAccountError } from "./use-account-error";

/**
 * Admins' account management: every account with its role, state and open
 * sessions; per account a panel to change the role, disable or enable it,
 * reset its password and end its sessions. Viewers never mount this (the
 * API answers them 403).
 */
export function AccountsCard() {
  const t = useTranslations("accounts");
  const accountError = useAccountError();
  const query = useAccounts();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const [open, setOpen] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<AccountChange | null>(null);
  const accounts = query.data?.accounts ?? [];
  const enabledAdmins = accounts.filter((a) => a.role === "admin" && a.status === "active").length;
  return (
    <DatabaseCard
      titleId="accounts-card-title"
      // The page's only card, right under its <h1>: its sections are <h3>.
      level={2}
      title={t("title")}
      testId="accounts-card"
      busy={query.isFetching}
      header={
        <div className={cardStyles.cardActions}>
          <RefreshButton query={query} testId="accounts-refresh" />
          {!adding && (
            <button type="button" className={cardStyles.buttonPrimary} onClick={() => (setAdding(true), setCreated(null))} data-testid="add-account">
              {t("add.open")}
            </button>
          )}
        </div>
      }
    >
      {query.data && (
        <p className={cardStyles.muted} data-testid="accounts-idle-note">
          {query.data.idleTimeoutMinutes === null ? t("idleOff") : t("idleNote", { minutes: query.data.idleTimeoutMinutes })}
        </p>
      )}
      {adding && (
        <AddAccountPanel
          onClose={() => setAdding(false)}
          onCreated={(change) => {
            setAdding(false);
            setCreated(change);
          }}
        />
      )}
      {created && (
        <p className={cardStyles.success} role="status" data-testid="account-created">
          {t("add.done", { email: created.account.email })}
        </p>
      )}
      {query.isPending && <div className={cardStyles.skeleton} role="status" aria-label={t("loading")} />}
      {query.isError && <ErrorSummary title={t("loadFailed")} message={accountError(query.error)} error={query.error} testId="accounts-error" />}
      {query.isSuccess && accounts.length <= 1 && (
        <p className={cardStyles.muted} data-testid="accounts-only-you">
          {t("onlyYou")}
        </p>
      )}
      {accounts.length > 0 && (
        <div className={cardStyles.tableWrap}>
          <table className={`${cardStyles.table} ${cardStyles.stackTable}`} data-testid="accounts-table">
            <caption className="visually-hidden">{t("listLabel", { count: accounts.length })}</caption>
            <TableHead
              classes={cardStyles}
              cells={[
                { key: "account", header: t("columns.account") },
                { key: "role", header: t("columns.role") },
                { key: "lastActive", header: t("columns.lastActive") },
                { key: "sessions", header: t("columns.sessions"), numeric: true },
                { key: "actions", header: t("columns.actions"), numeric: true },
              ]}
            />
            <tbody>
              {accounts.map((account) => (
                <AccountRow
                  key={account.id}
                  account={account}
                  isSelf={account.id === query.data?.selfId}
                  lastAdmin={enabledAdmins <= 1}
                  open={open === account.id}
                  onToggle={() => setOpen(open === account.id ? null : account.id)}
                  nowMs={now}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </DatabaseCard>
  );
}
