"use client";
// The page-level save bar: one Save and one Discard for every registered
// contributor with unsaved changes, and the browser's navigation guard while
// anything is unsaved. Fixed to the bottom, clear of the phone's home indicator.
import { useTranslations } from "next-intl";
import { useEffect, useState, useSyncExternalStore } from "react";
import { EMPTY_CONTRIBUTORS, saveBarStore, type SaveBarStore } from "./save-bar-store";
import styles from "./save-bar.module.css";

export function SaveBar({ store = saveBarStore }: { store?: SaveBarStore }) {
  const t = useTranslations("compaction.saveBar");
  const contributors = useSyncExternalStore(store.subscribe, store.getSnapshot, () => EMPTY_CONTRIBUTORS);
  const dirty = contributors.filter((contributor) => contributor.dirty);
  const saving = dirty.some((contributor) => contributor.saving);
  const canSave = dirty.length > 0 && dirty.every((contributor) => contributor.canSave) && !saving;
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    if (dirty.length === 0) return;
    const guard = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers need returnValue set to show the prompt.
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", guard);
    return () => window.removeEventListener("beforeunload", guard);
  }, [dirty.length]);

  if (dirty.length === 0) return null;

  const save = async () => {
    setFailed(false);
    let ok = true;
    for (const contributor of dirty) ok = (await contributor.save()) && ok;
    setFailed(!ok);
  };

  return (
    <>
      <div className={styles.spacer} aria-hidden="true" />
      <div className={styles.bar} role="region" aria-label={t("label")} data-testid="save-bar">
        <div className={styles.inner}>
          <p className={styles.message} aria-live="polite">
            {saving ? t("saving") : failed ? t("failed") : t("unsaved", { names: dirty.map((contributor) => contributor.label).join(", ") })}
          </p>
          <div className={styles.actions}>
            <button type="button" className={styles.secondary} onClick={() => dirty.forEach((contributor) => contributor.discard())} disabled={saving}>
              {t("discard")}
            </button>
            <button type="button" className={styles.primary} onClick={() => void save()} disabled={!canSave} aria-busy={saving}>
              {saving ? t("saving") : t("save")}
            </button>
          </div>
        </div>
      </div>
    </>
  );
}
