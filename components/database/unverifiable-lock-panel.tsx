"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { unverifiableLockConfirmation, type UnverifiableLockView } from "@/lib/database/api";
import { useClearMaintenanceLock } from "@/lib/database/client/use-clear-maintenance-lock";
import { formatDateTime } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { ErrorSummary } from "./error-summary";
import { TypedNameField } from "./typed-name-field";
import styles from "./cards.module.css";

/**
 * A maintenance lock that names another host: this server cannot tell whether
 * its holder still runs, so every backup, restore, VACUUM and compaction
 * batch waits for it. Everyone sees why; an admin can clear it by typing the
 * host it names (or the lock's id when that is unreadable).
 */
export function UnverifiableLockPanel({ lock, isAdmin }: { lock: UnverifiableLockView; isAdmin: boolean }) {
  const t = useTranslations("databaseCards.lock");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const errorMessage = useErrorMessage();
  const clear = useClearMaintenanceLock();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const expected = unverifiableLockConfirmation(lock);
  const matches = typed === expected;
  const acquiredMs = lock.acquiredAt ? parseRfc3339(lock.acquiredAt) : null;
  const since = acquiredMs === null ? t("unknownTime") : formatDateTime(acquiredMs, locale, timeZone);
  const host = lock.host ?? t("unreadableHost");
  const operation = lock.kind ?? t("unknownOperation");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!matches) return;
    clear.mutate({ id: lock.id, confirm: typed });
  }

  return (
    <section className={styles.warning} aria-labelledby="unverifiable-lock-title" data-testid="unverifiable-lock">
      <strong id="unverifiable-lock-title">{t("title")}</strong>
      <span>{t("explanation", { host, operation, since })}</span>
      <span className={styles.mutedMono} data-testid="unverifiable-lock-id">
        {t("lockId", { id: lock.id })}
      </span>
      {!isAdmin && <span>{t("viewerNote")}</span>}
      {isAdmin && !open && (
        <div>
          <button type="button" className={styles.button} onClick={() => setOpen(true)} data-testid="unverifiable-lock-open">
            {t("clear")}
          </button>
        </div>
      )}
      {isAdmin && open && (
        <form className={styles.panel} onSubmit={onSubmit} data-testid="unverifiable-lock-form">
          <span>{t("clearWarning", { host })}</span>
          {clear.isError && <ErrorSummary title={t("clearFailed")} message={errorMessage(clear.error)} error={clear.error} focusOnMount />}
          <div className={styles.inlineForm}>
            <TypedNameField label={lock.host ? t("typeHost") : t("typeId")} name={expected} value={typed} onChange={setTyped} autoFocus testId="unverifiable-lock-input" />
            <button type="submit" className={styles.buttonDanger} disabled={!matches || clear.isPending} aria-busy={clear.isPending} data-testid="unverifiable-lock-confirm">
              {clear.isPending ? t("clearing") : t("clearConfirm")}
            </button>
            <button type="button" className={styles.button} onClick={() => setOpen(false)} disabled={clear.isPending}>
              {t("cancel")}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
