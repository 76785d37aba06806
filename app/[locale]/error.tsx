"use client";

import { useTranslations } from "next-intl";
import styles from "@/components/shell/status-page.module.css";

export default function LocaleError({ reset }: { error: Error; reset: () => void }) {
  const t = useTranslations("errors");
  return (
    <main className={styles.page}>
      <div className={styles.card} role="alert">
        <h1>{t("genericTitle")}</h1>
        <p className={styles.body}>{t("genericBody")}</p>
        <button type="button" className={styles.action} onClick={reset}>
          {t("retry")}
        </button>
      </div>
    </main>
  );
}
