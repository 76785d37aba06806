"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import type { Account, AccountRole } from "@/lib/accounts/api";
import { postDisableAccount, postEnableAccount, postPasswordReset, putAccountRole } from "@/lib/accounts/client/fetchers";
import { useAccountAction } from "@/lib/accounts/client/use-account-action";
import { Link } from "@/lib/i18n/navigation";
import { BusyButton } from "@/components/ui/busy-button";
import { ErrorSummary } from "@/components/database/error-summary";
import cardStyles from "@/components/database/cards.module.css";
import { AccountSessions } from "./account-sessions";
import { TemporaryPasswordField } from "./temporary-password-field";
import { useAccountError } from "./use-account-error";
import styles from "./accounts.module.css";

type Props = {
  account: Account;
  isSelf: boolean;
  /** No other enabled admin: this one can be neither disabled nor demoted. */
  lastAdmin: boolean;
};

function Done({ children, testId }: { children: ReactNode; testId: string }) {
  return (
    <p className={cardStyles.success} role="status" data-testid={testId}>
      {children}
    </p>
  );
}

function RoleSection({ account, lastAdmin }: Props) {
  const t = useTranslations("accounts");
  const accountError = useAccountError();
  const [role, setRole] = useState<AccountRole>(account.role);
  const save = useAccountAction((next: AccountRole) => putAccountRole(account.id, next));
  const selectId = useId();
  const locked = lastAdmin && account.role === "admin";
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate(role);
  }
  return (
    <form className={styles.panelSection} onSubmit={onSubmit}>
      <h3 className={cardStyles.subTitle}>{t("role.title")}</h3>
      <p className={styles.hint}>{t("role.help")}</p>
      {locked && <p className={cardStyles.warning}>{t("role.lastAdmin")}</p>}
      <div className={cardStyles.inlineForm}>
        <div className={cardStyles.field}>
          {/* The section's heading names the select; the label stays for assistive technology. */}
          <label htmlFor={selectId} className="visually-hidden">
            {t("role.label", { email: account.email })}
          </label>
          <select id={selectId} className={cardStyles.select} value={role} onChange={(event) => setRole(event.target.value as AccountRole)} disabled={locked || save.isPending} data-testid="account-role">
            <option value="admin">{t("roles.admin")}</option>
            <option value="viewer">{t("roles.viewer")}</option>
          </select>
        </div>
        <button type="submit" className={cardStyles.button} disabled={locked || save.isPending || role === account.role} aria-busy={save.isPending} data-testid="account-role-save">
          {save.isPending ? t("role.saving") : t("role.save")}
        </button>
      </div>
      {save.isError && <ErrorSummary title={t("failed")} message={accountError(save.error)} error={save.error} focusOnMount testId="account-role-error" />}
      {save.isSuccess && save.data.changed && <Done testId="account-role-done">{t("role.done", { email: account.email, role: t(`roles.${save.data.account.role}`) })}</Done>}
    </form>
  );
}

function AccessSection({ account, isSelf, lastAdmin }: Props) {
  const t = useTranslations("accounts");
  const accountError = useAccountError();
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const disable = useAccountAction(() => postDisableAccount(account.id));
  const enable = useAccountAction(() => postEnableAccount(account.id));
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  const failed = disable.isError ? disable.error : enable.isError ? enable.error : null;
  return (
    <div className={styles.panelSection}>
      <h3 className={cardStyles.subTitle}>{t("access.title")}</h3>
      {isSelf && <p className={styles.hint}>{t("access.self")}</p>}
      {!isSelf && account.status === "active" && !asking && (
        <div className={cardStyles.cardActions}>
          <button type="button" className={cardStyles.buttonDanger} onClick={() => setAsking(true)} disabled={lastAdmin && account.role === "admin"} data-testid="account-disable">
            {t("access.disable")}
          </button>
        </div>
      )}
      {!isSelf && account.status === "active" && asking && (
        <div className={cardStyles.warning} data-testid="account-disable-confirm">
          <span>{t("access.question", { email: account.email })}</span>
          <div className={cardStyles.cardActions}>
            <button
              ref={confirmRef}
              type="button"
              className={cardStyles.buttonDanger}
              onClick={() => disable.mutate(undefined, { onSettled: () => setAsking(false) })}
              disabled={disable.isPending}
              aria-busy={disable.isPending}
              data-testid="account-disable-confirm-button"
            >
              {disable.isPending ? t("access.disabling") : t("access.confirm")}
            </button>
            <button type="button" className={cardStyles.button} onClick={() => setAsking(false)} disabled={disable.isPending}>
              {t("cancel")}
            </button>
          </div>
        </div>
      )}
      {!isSelf && account.status === "disabled" && (
        <div className={cardStyles.cardActions}>
          <BusyButton className={cardStyles.buttonPrimary} busy={enable.isPending} onClick={() => enable.mutate(undefined)} label={t("access.enable")} busyLabel={t("access.enabling")} data-testid="account-enable" />
        </div>
      )}
      {failed !== null && <ErrorSummary title={t("failed")} message={accountError(failed)} error={failed} focusOnMount testId="account-access-error" />}
      {disable.isSuccess && account.status === "disabled" && (
        <Done testId="account-disabled">{t("access.disabled", { email: account.email, count: disable.data.endedSessions })}</Done>
      )}
      {enable.isSuccess && account.status === "active" && <Done testId="account-enabled">{t("access.enabled", { email: account.email })}</Done>}
    </div>
  );
}

function ResetSection({ account, isSelf }: Props) {
  const t = useTranslations("accounts");
  const accountError = useAccountError();
  const [password, setPassword] = useState("");
  const reset = useAccountAction((temporaryPassword: string) => postPasswordReset(account.id, temporaryPassword));
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    reset.mutate(password, { onSuccess: () => setPassword("") });
  }
  if (isSelf) {
    return (
      <div className={styles.panelSection}>
        <h3 className={cardStyles.subTitle}>{t("reset.title")}</h3>
        <p className={styles.hint}>{t("reset.self")}</p>
        <Link href="/change-password" className={styles.link} data-testid="account-change-own-password">
          {t("reset.selfLink")}
        </Link>
      </div>
    );
  }
  return (
    <form className={styles.panelSection} onSubmit={onSubmit}>
      <h3 className={cardStyles.subTitle}>{t("reset.title")}</h3>
      <p className={styles.hint}>{t("reset.help", { email: account.email })}</p>
      <TemporaryPasswordField value={password} onChange={setPassword} testId="account-reset-password" disabled={reset.isPending} />
      <div className={cardStyles.cardActions}>
        <button type="submit" className={cardStyles.buttonDanger} disabled={reset.isPending || !password} aria-busy={reset.isPending} data-testid="account-reset-submit">
          {reset.isPending ? t("reset.submitting") : t("reset.submit")}
        </button>
      </div>
      {reset.isError && <ErrorSummary title={t("failed")} message={accountError(reset.error)} error={reset.error} focusOnMount testId="account-reset-error" />}
      {reset.isSuccess && <Done testId="account-reset-done">{t("reset.done", { email: account.email, count: reset.data.endedSessions })}</Done>}
    </form>
  );
}

/** Everything an admin can do to one account, under its row. */
export function AccountPanel(props: Props & { id: string }) {
  return (
    <div id={props.id} className={styles.panelGrid} data-testid="account-panel">
      <RoleSection {...props} />
      <AccessSection {...props} />
      <ResetSection {...props} />
      <AccountSessions account={props.account} />
    </div>
  );
}
