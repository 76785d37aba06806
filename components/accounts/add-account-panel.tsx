"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { AccountChange, AccountRole } from "@/lib/accounts/api";
import { postCreateAccount } from "@/lib/accounts/client/fetchers";
import { useAccountAction } from "@/lib/accounts/client/use-account-action";
import { ErrorSummary } from "@/components/database/error-summary";
import cardStyles from "@/components/database/cards.module.css";
import { TemporaryPasswordField } from "./temporary-password-field";
import { useAccountError } from "./use-account-error";
import styles from "./accounts.module.css";

/** A new account with a temporary password the person must replace at first sign-in. */
export function AddAccountPanel({ onClose, onCreated }: { onClose: () => void; onCreated: (change: AccountChange) => void }) {
  const t = useTranslations("accounts");
  const accountError = useAccountError();
  const create = useAccountAction(postCreateAccount);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<AccountRole>("viewer");
  const [password, setPassword] = useState("");
  const emailRef = useRef<HTMLInputElement>(null);
  const emailId = useId();
  const roleId = useId();
  const titleId = useId();
  useEffect(() => emailRef.current?.focus(), []);
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate({ email, role, temporaryPassword: password }, { onSuccess: onCreated });
  }
  return (
    <form className={styles.addForm} onSubmit={onSubmit} aria-labelledby={titleId} data-testid="add-account-form">
      <h3 id={titleId} className={cardStyles.subTitle}>
        {t("add.title")}
      </h3>
      {create.isError && <ErrorSummary title={t("add.failed")} message={accountError(create.error)} error={create.error} focusOnMount testId="add-account-error" />}
      <div className={styles.addFields}>
        <div className={cardStyles.field}>
          <label htmlFor={emailId}>{t("add.email")}</label>
          <input
            id={emailId}
            ref={emailRef}
            className={cardStyles.input}
            type="email"
            inputMode="email"
            autoComplete="off"
            spellCheck={false}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            required
            disabled={create.isPending}
            data-testid="add-account-email"
          />
        </div>
        <div className={cardStyles.field}>
          <label htmlFor={roleId}>{t("add.role")}</label>
          <select id={roleId} className={cardStyles.select} value={role} onChange={(event) => setRole(event.target.value as AccountRole)} disabled={create.isPending} data-testid="add-account-role">
            <option value="viewer">{t("roles.viewer")}</option>
            <option value="admin">{t("roles.admin")}</option>
          </select>
        </div>
      </div>
      <TemporaryPasswordField value={password} onChange={setPassword} testId="add-account-password" disabled={create.isPending} />
      <div className={cardStyles.cardActions}>
        <button type="submit" className={cardStyles.buttonPrimary} disabled={create.isPending || !email.trim() || !password} aria-busy={create.isPending} data-testid="add-account-submit">
          {create.isPending ? t("add.submitting") : t("add.submit")}
        </button>
        <button type="button" className={cardStyles.button} onClick={onClose} disabled={create.isPending}>
          {t("cancel")}
        </button>
      </div>
    </form>
  );
}
