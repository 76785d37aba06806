"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import { Link, usePathname } from "@/lib/i18n/navigation";
import { LANGUAGE_TAGS, LOCALES } from "@/lib/i18n/routing";
import styles from "./locale-switcher.module.css";

/**
 * A disclosure of plain links (one per locale) rather than a select: links
 * work without JavaScript and arrow keys never navigate by accident.
 */
export function LocaleSwitcher() {
  const t = useTranslations("locale");
  const locale = useLocale();
  const pathname = usePathname();
  const details = useRef<HTMLDetailsElement>(null);

  // Close on Escape (focus back on the toggle) and on a click outside.
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const el = details.current;
      if (event.key !== "Escape" || !el?.open) return;
      el.open = false;
      el.querySelector("summary")?.focus();
    }
    function onPointer(event: PointerEvent) {
      const el = details.current;
      if (el?.open && !el.contains(event.target as Node)) el.open = false;
    }
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, []);

  return (
    <details className={styles.switcher} ref={details} data-testid="locale-switcher">
      <summary className={styles.summary} aria-label={`${t("label")}: ${t(`names.${locale as (typeof LOCALES)[number]}`)}`}>
        <svg aria-hidden="true" viewBox="0 0 20 20" width="18" height="18" className={styles.icon}>
          <circle cx="10" cy="10" r="8" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path d="M2 10h16M10 2c2.5 2.6 2.5 13.4 0 16M10 2c-2.5 2.6-2.5 13.4 0 16" fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
        <span className={styles.current}>{t(`names.${locale as (typeof LOCALES)[number]}`)}</span>
      </summary>
      <ul className={styles.menu} aria-label={t("label")}>
        {LOCALES.map((option) => (
          <li key={option}>
            <Link
              href={pathname}
              locale={option}
              lang={LANGUAGE_TAGS[option]}
              hrefLang={LANGUAGE_TAGS[option]}
              aria-current={option === locale ? "true" : undefined}
              className={styles.option}
              onClick={() => details.current?.removeAttribute("open")}
            >
              {t(`names.${option}`)}
            </Link>
          </li>
        ))}
      </ul>
    </details>
  );
}
