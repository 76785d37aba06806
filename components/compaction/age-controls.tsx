"use client";
// Compact age controls: the number and its unit side by side, "Analyze
// savings" below them on a phone and beside them on a desktop. Thread expiry
// reuses them with days added to the units, its own limits, ids and labels.
import { useTranslations } from "next-intl";
import { AGE_LIMITS, type AgeUnit } from "@/lib/compaction/policy";
import styles from "./compaction-card.module.css";

type Limits = { min: number; max: number };

/** What another period control shows instead of compaction's weeks and months. */
export type AgeControlsVariant<U extends string> = {
  idPrefix: string;
  testId: string;
  legend: string;
  analyze: string;
  units: ReadonlyArray<{ value: U; label: string; limits: Limits }>;
};

export function AgeControls<U extends string = AgeUnit>(props: {
  draft: { ageValue: string; ageUnit: U };
  valid: boolean;
  analyzing: boolean;
  analyzeBlocked: boolean;
  onValue: (value: string) => void;
  onUnit: (unit: U) => void;
  onAnalyze: () => void;
  variant?: AgeControlsVariant<U>;
}) {
  const { draft, valid, analyzing, analyzeBlocked, onValue, onUnit, onAnalyze, variant } = props;
  const t = useTranslations("compaction.age");
  const units: ReadonlyArray<{ value: string; label: string; limits: Limits }> = variant?.units ?? [
    { value: "weeks", label: t("weeks"), limits: AGE_LIMITS.weeks },
    { value: "months", label: t("months"), limits: AGE_LIMITS.months },
  ];
  const limits = units.find((u) => u.value === draft.ageUnit)?.limits ?? units[0]!.limits;
  const id = variant?.idPrefix ?? "retention-age";
  return (
    <fieldset className={styles.ageFieldset} data-testid={variant?.testId ?? "retention-age"}>
      <legend className={styles.label}>{variant?.legend ?? t("legend")}</legend>
      <div className={styles.ageRow}>
        <div className={styles.agePair}>
          <input
            id={`${id}-value`}
            className={styles.numberInput}
            type="number"
            inputMode="numeric"
            min={limits.min}
            max={limits.max}
            step={1}
            value={draft.ageValue}
            aria-label={t("value")}
            aria-invalid={!valid}
            aria-describedby={valid ? undefined : `${id}-error`}
            onChange={(event) => onValue(event.target.value)}
          />
          <select id={`${id}-unit`} className={styles.select} value={draft.ageUnit} aria-label={t("unit")} onChange={(event) => onUnit(event.target.value as U)}>
            {units.map((unit) => (
              <option key={unit.value} value={unit.value}>
                {unit.label}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className={styles.secondaryButton} onClick={onAnalyze} disabled={!valid || analyzing || analyzeBlocked} aria-busy={analyzing}>
          {analyzing ? t("analyzing") : (variant?.analyze ?? t("analyze"))}
        </button>
      </div>
      {!valid && (
        <p id={`${id}-error`} className={styles.fieldError}>
          {t("invalid", { min: limits.min, max: limits.max })}
        </p>
      )}
    </fieldset>
  );
}
