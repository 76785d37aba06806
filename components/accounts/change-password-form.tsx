"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useSignOut } from "@/lib/auth/client/use-sign-out";
import { useChangePassword } from "@/lib/accounts/client/use-change-password";
import styles from "@/components/auth/sign-in.module.css";
import { useAccountError } from "./use-account-error";
import own from "./accounts.module.css";

type Props = {
  /** An admin set the current password: the user may do nothing else until it is replaced. */
  forced: boolean;
  email: string;
  /** Where to go once it is changed (a path of this app). */
  next: string;
  home: string;
  signInPath: string;
};

type FormProblem = { kind: "missing" } | { kind: "mismatch" } | { kind: "server"; error: unknown };

/** The user's own new password, checked twice here and by the server's rule. */
export function ChangePasswordForm({ forced, email, next, home, signInPath }: Props) {
  const t = useTranslations("accounts.changePassword");
  const accountError = useAccountError();
  const change = useChangePassword();
  const signOut = useSignOut();
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [pending, setPending] = useState(false);
  const summary = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (problem) summary.current?.focus();
  }, [problem]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const currentPassword = String(data.get("current") ?? "");
    const newPassword = String(data.get("new") ?? "");
    if (!currentPassword || !newPassword || !data.get("repeat")) return setProblem({ kind: "missing" });
    if (newPassword !== data.get("repeat")) return setProblem({ kind: "mismatch" });
    setPending(true);
    setProblem(null);
    try {
      await change.mutateAsync({ currentPassword, newPassword });
      // A full navigation: every server component renders with the cleared mark.
      window.location.assign(next);
    } catch (error) {
      setProblem({ kind: "server", error });
      setPending(false);
    }
  }

  async function leave() {
    setPending(true);
    try {
      await signOut.mutateAsync();
    } finally {
      window.location.assign(signInPath);
    }
  }

  const message = problem?.kind === "missing" ? t("missing") : problem?.kind === "mismatch" ? t("mismatch") : problem ? accountError(problem.error) : null;
  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-describedby={message ? "change-password-error" : "change-password-rule"} data-testid="change-password-form">
      {message && (
        <div id="change-password-error" ref={summary} className={styles.error} role="alert" tabIndex={-1} data-testid="change-password-error">
          <strong>{t("failed")}</strong>
          <span>{message}</span>
        </div>
      )}
      {/* For password managers: the account this password belongs to. */}
      <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
      <div className={styles.field}>
        <label htmlFor="current-password">{forced ? t("temporary") : t("current")}</label>
        <input id="current-password" className={styles.input} name="current" type="password" autoComplete="current-password" required />
      </div>
      <div className={styles.field}>
        <label htmlFor="new-password">{t("new")}</label>
        <input id="new-password" className={styles.input} name="new" type="password" autoComplete="new-password" required aria-describedby="change-password-rule" />
        <span id="change-password-rule" className={styles.subtitle}>
          {t("rule")}
        </span>
      </div>
      <div className={styles.field}>
        <label htmlFor="repeat-password">{t("repeat")}</label>
        <input id="repeat-password" className={styles.input} name="repeat" type="password" autoComplete="new-password" required />
      </div>
      <button type="submit" className={styles.submit} disabled={pending} aria-busy={pending} data-testid="change-password-submit">
        {pending ? t("submitting") : t("submit")}
      </button>
      {forced ? (
        <button type="button" className={own.secondary} onClick={() => void leave()} disabled={pending}>
          {t("signOut")}
        </button>
      ) : (
        <a className={own.secondary} href={home}>
          {t("back")}
        </a>
      )}
    </form>
  );
}
