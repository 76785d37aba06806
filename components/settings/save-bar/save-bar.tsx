"use client";
// The page-level save bar: one Save and one Discard for every registered
// contributor with unsaved changes, and the browser's navigation guard while
// anything is unsaved. Fixed to the bottom, clear of the phone's home
// indicator. In the document it sits in the changed card's slot (right after
// the controls that changed), so Tab reaches it in a few presses; after Save
// or Discard focus returns to the control that made the change.
import { useTranslations } from "next-intl";
import { useEffect, useState, useSyncExternalStore } from "react";
import { createPortal } from "react-dom";
import { EMPTY_CONTRIBUTORS, saveBarStore, type SaveBarStore, type SaveContributor } from "./save-bar-store";
import styles from "./save-bar.module.css";

/** The slot element of the first dirty contributor that has one, once mounted (never during the server render). */
function useSlot(dirty: readonly SaveContributor[]): HTMLElement | null {
  const slotId = dirty.find((contributor) => contributor.slotId)?.slotId ?? null;
  const [slot, setSlot] = useState<HTMLElement | null>(null);
  useEffect(() => {
    const element = slotId ? document.getElementById(slotId) : null;
    // Finding a DOM node after mount is the external system this effect syncs with.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setSlot(element);
  }, [slotId]);
  return slotId ? slot : null;
}

export function SaveBar({ store = saveBarStore }: { store?: SaveBarStore }) {
  const t = useTranslations("compaction.saveBar");
  const contributors = useSyncExternalStore(store.subscribe, store.getSnapshot, () => EMPTY_CONTRIBUTORS);
  const dirty = contributors.filter((contributor) => contributor.dirty);
  const saving = dirty.some((contributor) => contributor.saving);
  const canSave = dirty.length > 0 && dirty.every((contributor) => contributor.canSave) && !saving;
  const [failed, setFailed] = useState(false);
  const slot = useSlot(dirty);

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
    const saved: SaveContributor[] = [];
    let ok = true;
    for (const contributor of dirty) {
      const outcome = await contributor.save();
      // A declined confirmation is no failure: nothing was sent, the bar stays.
      if (outcome === "cancelled") return;
      if (outcome) saved.push(contributor);
      ok = outcome && ok;
    }
    setFailed(!ok);
    if (ok) saved[0]?.restoreFocus?.();
  };

  const discard = () => {
    dirty.forEach((contributor) => contributor.discard());
    dirty[0]?.restoreFocus?.();
  };

  const bar = (
    <div className={styles.bar} role="region" aria-label={t("label")} data-testid="save-bar">
      <div className={styles.inner}>
        <p className={styles.message} aria-live="polite">
          {saving ? t("saving") : failed ? t("failed") : t("unsaved", { names: dirty.map((contributor) => contributor.label).join(", ") })}
        </p>
        <div className={styles.actions}>
          <button type="button" className={styles.secondary} onClick={discard} disabled={saving}>
            {t("discard")}
          </button>
          <button type="button" className={styles.primary} onClick={() => void save()} disabled={!canSave} aria-busy={saving}>
            {saving ? t("saving") : t("save")}
          </button>
        </div>
      </div>
    </div>
  );

  return (
    <>
      <div className={styles.spacer} aria-hidden="true" />
      {slot ? createPortal(bar, slot) : bar}
    </>
  );
}
