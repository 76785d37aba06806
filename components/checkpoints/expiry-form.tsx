"use client";
// The administrator's thread expiry controls, in compaction's order: the
// period with Analyze, what the analysis counted, the switch, the backup or
// skip choice when the save needs one, then Review and save. A save that can
// delete threads first states what it deletes (from the analysis for that
// period) and asks to confirm; turning expiry off saves at once.
import { useLocale, useTranslations } from "next-intl";
import { useId } from "react";
import { EXPIRY_AGE_LIMITS, type ExpiryAgeUnit, type ExpiryStatus } from "@/lib/checkpoints/maintenance-api";
import { useExpiryDraft } from "@/lib/checkpoints/client/use-expiry-draft";
import { useSaveThreadExpiry } from "@/lib/checkpoints/client/use-save-thread-expiry";
import { useThreadExpiryOperation } from "@/lib/checkpoints/client/use-thread-expiry-operation";
import { formatBytes } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { AgeControls } from "@/components/compaction/age-controls";
import { AutomaticSwitch } from "@/components/compaction/automatic-switch";
import { ExpiryAnalysis, sameAge, useAgeText } from "./expiry-analysis";
import { ExpiryBackupChoice } from "./expiry-backup-choice";
import styles from "./checkpoint-schedule.module.css";

const UNITS: readonly ExpiryAgeUnit[] = ["days", "weeks", "months"];

export function ExpiryForm({ status }: { status: ExpiryStatus }) {
  const t = useTranslations("checkpoints.schedule");
  const locale = useLocale();
  const errorText = useErrorMessage("checkpoints");
  const ageText = useAgeText();
  const draft = useExpiryDraft(status);
  const save = useSaveThreadExpiry();
  const operation = useThreadExpiryOperation();
  const confirmTitleId = useId();
  const form = draft.draft;
  if (!form) return null;
  const active = status.activeOperation;
  const analyzing = active?.kind === "expiry_analysis" || (operation.isPending && operation.variables?.kind === "analyze");
  const analysis = status.latestAnalysis;
  const counted = analysis?.state === "succeeded" && sameAge(analysis.age, draft.age) ? analysis : null;
  const submit = () => {
    if (!draft.age) return;
    save.mutate({
      policy: { enabled: form.enabled, age: draft.age },
      expectedRevision: status.policy.revision,
      ...(draft.needsChoice && draft.choice ? { preparation: draft.choice } : {}),
    });
  };
  return (
    <div className={styles.stack} data-testid="expiry-form">
      <AgeControls<ExpiryAgeUnit>
        draft={{ ageValue: form.ageValue, ageUnit: form.ageUnit }}
        valid={draft.age !== null}
        analyzing={analyzing}
        analyzeBlocked={active !== null}
        onValue={draft.setAgeValue}
        onUnit={draft.setAgeUnit}
        onAnalyze={() => draft.age && operation.mutate({ kind: "analyze", age: draft.age })}
        variant={{
          idPrefix: "expiry-age",
          testId: "expiry-age",
          legend: t("expiry.legend"),
          analyze: t("expiry.analyze"),
          units: UNITS.map((unit) => ({ value: unit, label: t(`expiry.${unit}`), limits: EXPIRY_AGE_LIMITS[unit] })),
        }}
      />
      <ExpiryAnalysis analysis={analysis} draftAge={draft.age} analyzing={analyzing} />
      <AutomaticSwitch
        idPrefix="expiry-enabled"
        testId="expiry-switch"
        label={t("expiry.switch")}
        checked={form.enabled}
        stateText={draft.dirty ? t("unsaved") : t(status.policy.enabled ? "on" : "off")}
        onChange={draft.setEnabled}
      />
      {draft.needsChoice && <ExpiryBackupChoice choice={draft.choice} acknowledged={draft.acknowledged} onChoice={draft.setChoice} onAcknowledged={draft.setAcknowledged} />}
      {draft.confirming && draft.age ? (
        <div className={styles.confirm} role="group" aria-labelledby={confirmTitleId} data-testid="expiry-confirm">
          <p id={confirmTitleId} className={styles.confirmTitle}>
            {t("expiry.confirmTitle", { age: ageText(draft.age) })}
          </p>
          <p>
            {counted
              ? t("expiry.confirmCounts", { threads: counted.threads, checkpoints: counted.checkpoints, bytes: formatBytes(counted.bytes, locale), age: ageText(draft.age) })
              : t("expiry.confirmNoCounts", { age: ageText(draft.age) })}
          </p>
          <p>{t("expiry.confirmHandles")}</p>
          {draft.needsChoice && <p>{draft.choice === "backup" ? t("expiry.confirmBackup") : t("expiry.confirmSkip")}</p>}
          <div className={styles.actions}>
            {/* Busy, not disabled, while saving: keyboard focus stays on the button. */}
            <button type="button" className={styles.buttonDanger} aria-busy={save.isPending} onClick={() => !save.isPending && submit()} data-testid="expiry-confirm-delete">
              {save.isPending ? t("saving") : t("expiry.confirm")}
            </button>
            <button type="button" className={styles.button} onClick={() => draft.setConfirming(false)}>
              {t("expiry.back")}
            </button>
          </div>
        </div>
      ) : (
        <div className={styles.actions}>
          <button
            type="button"
            className={styles.buttonPrimary}
            disabled={!draft.canSave || save.isPending}
            aria-busy={save.isPending}
            onClick={() => (draft.deletes ? draft.setConfirming(true) : submit())}
            data-testid="expiry-save"
          >
            {save.isPending ? t("saving") : draft.deletes ? t("expiry.save") : t("expiry.saveOff")}
          </button>
        </div>
      )}
      {(save.isError || operation.isError) && (
        <p className={styles.error} role="alert">
          {errorText(save.error ?? operation.error)}
        </p>
      )}
    </div>
  );
}
