"use client";
// What deleting a backup removes, stated before the administrator commits:
// the file (name, size, when it was made), what other backup is left to hold
// the database, what it means for Messages compaction when it is the
// preparation's receipt, that per-task restore from it ends, and that a
// deleted backup cannot come back.
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { BackupEntry } from "@/lib/database/api";
import { formatBytes, formatDateTime } from "@/lib/i18n/format";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { Consequences } from "@/components/ui/confirm-dialog";
import { RestoreWindowNote } from "@/components/task-compaction/restore-window-note";

export function BackupDeleteConsequences({ backup, others }: { backup: BackupEntry; others: readonly BackupEntry[] }) {
  const t = useTranslations("databaseCards.backups");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const when = (entry: BackupEntry) => {
    const ms = parseRfc3339(entry.createdAt);
    return ms === null ? entry.createdAt : formatDateTime(ms, locale, timeZone);
  };
  const newest = others[0] ?? null;
  return (
    <Consequences
      testId="backup-delete-consequences"
      items={[
        { key: "removed", label: t("consequenceRemovedLabel"), value: t("consequenceRemoved", { name: backup.name, size: formatBytes(backup.sizeBytes, locale), time: when(backup) }) },
        {
          key: "left",
          label: t("consequenceLeftLabel"),
          value: newest ? t("consequenceLeft", { count: others.length, name: newest.name, time: when(newest) }) : t("consequenceNoneLeft"),
        },
        ...(backup.pinned ? [{ key: "compaction", label: t("consequenceCompactionLabel"), value: t("pinnedDeleteWarning") }] : []),
        // Per-task restore (#29) reads removed payloads from a backup taken before the removals.
        { key: "restore", label: t("consequenceRestoreLabel"), value: <RestoreWindowNote context="delete" /> },
        { key: "undo", label: t("consequenceUndoLabel"), value: t("consequenceUndo") },
      ]}
    />
  );
}
