"use client";

import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import { getPathname } from "@/lib/i18n/navigation";
import { useSignOut } from "@/lib/auth/client/use-sign-out";
import styles from "./shell.module.css";

export function SignOutButton() {
  const t = useTranslations("shell");
  const locale = useLocale();
  const mutation = useSignOut();
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);

  async function signOut() {
    setPending(true);
    setFailed(false);
    try {
      await mutation.mutateAsync();
    } catch {
      setFailed(true);
      setPending(false);
      return;
    }
    // Full navigation: drops every cached query of the old session.
    window.location.assign(getPathname({ href: "/sign-in", locale }));
  }

  return (
    <>
      <button type="button" className={styles.signOut} onClick={signOut} disabled={pending} aria-busy={pending}>
        <svg aria-hidden="true" viewBox="0 0 20 20" width="18" height="18">
          <path d="M8 4H5a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h3M12 14l4-4-4-4M16 10H8" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
        <span className={styles.signOutLabel}>{pending ? t("signingOut") : t("signOut")}</span>
      </button>
      {failed && (
        <p role="alert" className={styles.inlineError}>
          {t("signOutFailed")}
        </p>
      )}
    </>
  );
}
