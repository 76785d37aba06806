"use client";
// The choice a first enable or a shorter period needs before any thread is
// deleted: a verified backup first, or an explicit skip with its
// acknowledgement. Compaction's backup choice, in thread expiry's words.
import { useTranslations } from "next-intl";
import { BackupChoiceFields } from "@/components/compaction/backup-review";

export function ExpiryBackupChoice(props: {
  choice: "backup" | "skip" | null;
  acknowledged: boolean;
  onChoice: (choice: "backup" | "skip") => void;
  onAcknowledged: (value: boolean) => void;
}) {
  const t = useTranslations("checkpoints.schedule.expiry");
  return (
    <BackupChoiceFields
      {...props}
      variant={{
        name: "expiry-backup",
        testId: "expiry-backup-choice",
        legend: t("backupTitle"),
        intro: t("backupIntro"),
        texts: { backup: t("backup"), backupHint: t("backupHint"), skip: t("skip"), skipHint: t("skipHint"), acknowledge: t("acknowledge"), required: t("choiceRequired") },
      }}
    />
  );
}
