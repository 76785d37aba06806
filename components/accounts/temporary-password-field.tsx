"use client";

import { useTranslations } from "next-intl";
import { useId, useState } from "react";
import cardStyles from "@/components/database/cards.module.css";
import styles from "./accounts.module.css";

// No 0/O, 1/l/I: the password is read out or copied by hand.
const ALPHABET = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** Four groups of four random characters (about 92 bits), made in the browser: the server never chooses it. */
export function generateTemporaryPassword(): string {
  const bytes = new Uint32Array(16);
  crypto.getRandomValues(bytes);
  const chars = [...bytes].map((n) => ALPHABET[n % ALPHABET.length]);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join("")).join("-");
}

/** A temporary password an admin types or generates; shown as text once generated, so it can be copied. */
export function TemporaryPasswordField(props: { value: string; onChange: (value: string) => void; testId: string; disabled?: boolean }) {
  const t = useTranslations("accounts.temporary");
  const [visible, setVisible] = useState(false);
  const inputId = useId();
  const hintId = useId();
  return (
    <div className={cardStyles.field}>
      <label htmlFor={inputId}>{t("label")}</label>
      <div className={styles.passwordRow}>
        <input
          id={inputId}
          className={`${cardStyles.input} ${cardStyles.mono}`}
          type={visible ? "text" : "password"}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
          autoComplete="new-password"
          autoCapitalize="off"
          spellCheck={false}
          aria-describedby={hintId}
          disabled={props.disabled}
          data-testid={props.testId}
        />
        <button
          type="button"
          className={cardStyles.button}
          onClick={() => {
            props.onChange(generateTemporaryPassword());
            setVisible(true);
          }}
          disabled={props.disabled}
          data-testid={`${props.testId}-generate`}
        >
          {t("generate")}
        </button>
        <button type="button" className={cardStyles.button} onClick={() => setVisible(!visible)} aria-pressed={visible} disabled={props.disabled}>
          {visible ? t("hide") : t("show")}
        </button>
      </div>
      <span id={hintId} className={styles.hint}>
        {t("hint")}
      </span>
    </div>
  );
}
