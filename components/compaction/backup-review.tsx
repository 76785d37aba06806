"use client";
// Backup review: the inline choice an enablement needs (create a backup
// first, or skip it with an acknowledgement), then the preparation state and
// receipt. The copy never promises a backup saves space or undoes one message.
import { useTranslations } from "next-intl";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import type { BackupChoice } from "@/lib/compaction/client/draft-model";
import type { RetentionFormat } from "./use-compaction-format";
import styles from "./retention-card.module.css";

type ChoiceProps = {
  choice: BackupChoice | null;
  acknowledged: boolean;
  onChoice: (choice: BackupChoice) => void;
  onAcknowledged: (value: boolean) => void;
};

export function BackupReview(props: { status: CompactionStatusBody; format: RetentionFormat; choiceProps: ChoiceProps | null }) {
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
          {t("receiptBackup", { name: receipt.name, size: format.bytes(receipt.sizeBytes), time: format.time(receipt.completedAt) ?? "" })}
        </p>
      )}
      {receipt && "skippedAt" in receipt && <p className={styles.muted}>{t("receiptSkip", { time: format.time(receipt.skippedAt) ?? "" })}</p>}
      {!choiceProps && !receipt && prep.state === "none" && <p className={styles.muted}>{t("none")}</p>}
    </section>
  );
}

function BackupChoiceFields(props: ChoiceProps) {
  const t = useTranslations("compaction.backup");
  return (
    <fieldset className={styles.choiceFieldset} data-testid="retention-backup-choice">
      <legend className={styles.muted}>{t("intro")}</legend>
      {(["backup", "skip"] as const).map((value) => (
        <label key={value} className={styles.choice}>
          <input type="radio" name="retention-backup" value={value} checked={props.choice === value} onChange={() => props.onChoice(value)} />
          <span>
            <span className={styles.choiceTitle}>{t(value)}</span>
            <span className={styles.muted}>{t(`${value}Hint`)}</span>
          </span>
        </label>
      ))}
      {props.choice === "skip" && (
        <label className={styles.choice}>
          <input type="checkbox" checked={props.acknowledged} onChange={(event) => props.onAcknowledged(event.target.checked)} />
          <span>{t("acknowledge")}</span>
        </label>
      )}
      {props.choice === null && <p className={styles.muted}>{t("required")}</p>}
    </fieldset>
  );
}
