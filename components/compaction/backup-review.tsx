"use client";
// Backup review: the inline choice an enablement needs (create a backup
// first, or skip it with an acknowledgement), then the preparation state and
// receipt. The copy never promises a backup saves space or undoes one message.
import { useTranslations } from "next-intl";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import type { BackupChoice } from "@/lib/compaction/client/draft-model";
import type { CompactionFormat } from "./use-compaction-format";
import { RestoreWindowNote } from "@/components/task-compaction/restore-window-note";
import styles from "./compaction-card.module.css";

type ChoiceProps = {
  choice: BackupChoice | null;
  acknowledged: boolean;
  onChoice: (choice: BackupChoice) => void;
  onAcknowledged: (value: boolean) => void;
};

export function BackupReview(props: { status: CompactionStatusBody; format: CompactionFormat; choiceProps: ChoiceProps | null }) {
  const { status, format, choiceProps } = props;
  const t = useTranslations("compaction.backup");
  const prep = status.preparation;
  const receipt = prep.receipt;
  return (
    <section className={styles.block} aria-labelledby="retention-backup-title" data-testid="retention-backup">
      <h4 id="retention-backup-title" className={styles.blockTitle}>
        {t("title")}
      </h4>
      {choiceProps && <BackupChoiceFields {...choiceProps} />}
      {(prep.state === "pending" || prep.state === "running") && (
        <p className={styles.info} data-testid="retention-preparing">
          {t("preparing")}
        </p>
      )}
      {prep.state === "failed" && <p className={styles.warning}>{t("failed", { reason: format.operationError(prep.errorCode ?? "other") })}</p>}
      {receipt && "name" in receipt && (
        <p className={styles.muted} data-testid="retention-receipt">
          {t("receiptBackup", { name: receipt.name, size: format.bytes(receipt.sizeBytes), time: format.time(receipt.completedAt) ?? "" })}{" "}
          <RestoreWindowNote context="receipt" />
        </p>
      )}
      {receipt && "skippedAt" in receipt && <p className={styles.muted}>{t("receiptSkip", { time: format.time(receipt.skippedAt) ?? "" })}</p>}
      {!choiceProps && !receipt && prep.state === "none" && <p className={styles.muted}>{t("none")}</p>}
    </section>
  );
}

/** Another job's wording of the same choice (thread expiry), its radio group name and test id. */
export type BackupChoiceVariant = {
  name: string;
  testId: string;
  legend: string;
  intro: string;
  texts: Record<"backup" | "backupHint" | "skip" | "skipHint" | "acknowledge" | "required", string>;
};

export function BackupChoiceFields(props: ChoiceProps & { variant?: BackupChoiceVariant }) {
  const t = useTranslations("compaction.backup");
  const { variant } = props;
  const text = (key: keyof BackupChoiceVariant["texts"]) => variant?.texts[key] ?? t(key);
  return (
    <fieldset className={styles.choiceFieldset} data-testid={variant?.testId ?? "retention-backup-choice"}>
      <legend className={variant ? styles.label : styles.muted}>{variant?.legend ?? t("intro")}</legend>
      {variant && <p className={styles.muted}>{variant.intro}</p>}
      {(["backup", "skip"] as const).map((value) => (
        <label key={value} className={styles.choice}>
          <input type="radio" name={variant?.name ?? "retention-backup"} value={value} checked={props.choice === value} onChange={() => props.onChoice(value)} />
          <span>
            <span className={styles.choiceTitle}>{text(value)}</span>
            <span className={styles.muted}>{text(`${value}Hint`)}</span>
          </span>
        </label>
      ))}
      {props.choice === "skip" && (
        <label className={styles.choice}>
          <input type="checkbox" checked={props.acknowledged} onChange={(event) => props.onAcknowledged(event.target.checked)} />
          <span>{text("acknowledge")}</span>
        </label>
      )}
      {props.choice === null && <p className={styles.muted}>{text("required")}</p>}
    </fieldset>
  );
}
