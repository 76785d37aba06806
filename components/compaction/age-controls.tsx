"use client";
// Compact age controls: the number and its unit side by side, "Analyze
// savings" below them on a phone and beside them on a desktop.
import { useTranslations } from "next-intl";
import { AGE_LIMITS, type AgeUnit } from "@/lib/compaction/policy";
import type { PolicyDraftForm } from "@/lib/compaction/client/draft-model";
import styles from "./retention-card.module.css";

export function AgeControls(props: {
  draft: PolicyDraftForm;
  valid: boolean;
  analyzing: boolean;
  analyzeBlocked: boolean;
  onValue: (value: string) => void;
  onUnit: (unit: AgeUnit) => void;
  onAnalyze: () => void;
}) {
  const { draft, valid, analyzing, analyzeBlocked, onValue, onUnit, onAnalyze } = props;
  const t = useTranslations("compaction.age");
  const limits = AGE_LIMITS[draft.ageUnit];
  return (
    <fieldset className={styles.ageFieldset} data-testid="retention-age">
      <legend className={styles.label}>{t("legend")}</legend>
      <div className={styles.ageRow}>
        <div className={styles.agePair}>
          <input
            id="retention-age-value"
            className={styles.numberInput}
            type="number"
            inputMode="numeric"
            min={limits.min}
            max={limits.max}
            step={1}
            value={draft.ageValue}
            aria-label={t("value")}
            aria-invalid={!valid}
            aria-describedby={valid ? undefined : "retention-age-error"}
            onChange={(event) => onValue(event.target.value)}
          />
          <select
            id="retention-age-unit"
            className={styles.select}
            value={draft.ageUnit}
            aria-label={t("unit")}
            onChange={(event) => onUnit(event.target.value as AgeUnit)}
          >
            <option value="weeks">{t("weeks")}</option>
            <option value="months">{t("months")}</option>
          </select>
        </div>
        <button type="button" className={styles.secondaryButton} onClick={onAnalyze} disabled={!valid || analyzing || analyzeBlocked} aria-busy={analyzing}>
          {analyzing ? t("analyzing") : t("analyze")}
        </button>
      </div>
      {!valid && (
        <p id="retention-age-error" className={styles.fieldError}>
          {t("invalid", { min: limits.min, max: limits.max })}
        </p>
      )}
    </fieldset>
  );
}
