"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { LoginBody } from "@/lib/auth/api";
import { useSignIn } from "@/lib/auth/client/use-sign-in";
import { isApiError } from "@/lib/query/fetch-json";
import styles from "./sign-in.module.css";

type FormError = { kind: "invalid" } | { kind: "disabled" } | { kind: "throttled"; minutes: number } | { kind: "input" } | { kind: "unavailable" };

function toFormError(error: unknown): FormError {
  if (!isApiError(error)) return { kind: "unavailable" };
  if (error.code === "too_many_requests") {
    return { kind: "throttled", minutes: Math.max(1, Math.ceil((error.retryAfterSeconds ?? 900) / 60)) };
  }
  if (error.code === "invalid_credentials") return { kind: "invalid" };
  if (error.code === "account_disabled") return { kind: "disabled" };
  if (error.code === "invalid_request") return { kind: "input" };
  return { kind: "unavailable" };
}

export function SignInForm({ next, changePasswordPath }: { next: string; changePasswordPath: string }) {
  const t = useTranslations("signIn");
  const signIn = useSignIn();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<FormError | null>(null);
  const summary = useRef<HTMLDivElement>(null);

  // Move focus to the error so keyboard and screen-reader users hear it.
  useEffect(() => {
    if (error) summary.current?.focus();
  }, [error]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body: LoginBody = { email: String(data.get("email") ?? ""), password: String(data.get("password") ?? "") };
    if (!body.email.trim() || !body.password) {
      setError({ kind: "input" });
      return;
    }
    setPending(true);
    setError(null);
    try {
      const { user } = await signIn.mutateAsync(body);
      // A full navigation so every server component renders with the new session;
      // a temporary password is replaced first, then the user goes on to `next`.
      window.location.assign(user.mustChangePassword ? `${changePasswordPath}?next=${encodeURIComponent(next)}` : next);
    } catch (caught) {
      setError(toFormError(caught));
      setPending(false);
    }
  }

  const message =
    error?.kind === "throttled"
      ? t("throttled", { minutes: error.minutes })
      : error?.kind === "invalid"
        ? t("invalidCredentials")
        : error?.kind === "disabled"
          ? t("accountDisabled")
        : error?.kind === "input"
          ? t("invalidInput")
          : error
            ? t("unavailable")
            : null;

  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-describedby={message ? "sign-in-error" : undefined}>
      {message && (
        <div id="sign-in-error" ref={summary} className={styles.error} role="alert" tabIndex={-1} data-testid="sign-in-error">
          <strong>{t("errorTitle")}</strong>
          <span>{message}</span>
        </div>
      )}
      <div className={styles.field}>
        <label htmlFor="email">{t("email")}</label>
        <input id="email" className={styles.input} name="email" type="email" autoComplete="username" inputMode="email" required spellCheck={false} />
      </div>
      <div className={styles.field}>
        <label htmlFor="password">{t("password")}</label>
        <input id="password" className={styles.input} name="password" type="password" autoComplete="current-password" required />
      </div>
      <button type="submit" className={styles.submit} disabled={pending} aria-busy={pending}>
        {pending ? t("submitting") : t("submit")}
      </button>
    </form>
  );
}
