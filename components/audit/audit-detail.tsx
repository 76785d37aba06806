"use client";

import { useLocale, useTranslations } from "next-intl";
import type { AuditEntry, AuditPolicyView } from "@/lib/audit/api";
import { formatBytes } from "@/lib/i18n/format";
import styles from "@/components/database/cards.module.css";

function usePolicyText() {
  const t = useTranslations("activity");
  return (policy: AuditPolicyView | null | undefined): string => {
    if (!policy || !policy.enabled) return t("policyOff");
    // Automatic checkpoint cleanup has no age: it is on or off.
    if (!policy.age) return t("policyOnDaily");
    const { unit, value } = policy.age;
    const age = unit === "days" ? t("ageDays", { count: value }) : unit === "weeks" ? t("ageWeeks", { count: value }) : t("ageMonths", { count: value });
    return t("policyOn", { age });
  };
}

/** The account an entry is about: its email, or its id once it is gone. */
function subjectOf(entry: AuditEntry, removed: (id: string) => string): string | null {
  if (entry.subjectEmail) return entry.subjectEmail;
  return entry.detail.userId ? removed(entry.detail.userId) : null;
}

/** One line saying what the entry changed, from its allowlisted detail. */
export function AuditDetailLine({ entry }: { entry: AuditEntry }) {
  const t = useTranslations("activity");
  const locale = useLocale();
  const policyText = usePolicyText();
  const { detail } = entry;
  const subject = subjectOf(entry, (id) => t("removedSubject", { id }));
  const ended = detail.sessions !== undefined ? t("sessionsEnded", { count: detail.sessions }) : null;
  const join = (...parts: (string | null)[]) => parts.filter(Boolean).join(" · ") || null;
  let text: string | null = null;
  switch (entry.kind) {
    case "policy.changed":
    case "checkpoints.schedule_changed":
    case "threads.expiry_changed":
      text =
        entry.result === "ok"
          ? join(
              t("policyChange", { before: policyText(detail.before), after: policyText(detail.after), revision: detail.revision ?? 0 }),
              detail.choice ? (detail.choice === "backup" ? t("choiceBackup", { revision: detail.revision ?? 0 }) : t("choiceSkip", { revision: detail.revision ?? 0 })) : null,
            )
          : t("policyRequested", { after: policyText(detail.after) });
      break;
    case "preparation.chosen":
      text = detail.choice === "backup" ? t("choiceBackup", { revision: detail.revision ?? 0 }) : t("choiceSkip", { revision: detail.revision ?? 0 });
      break;
    case "backup.created":
    case "backup.deleted":
    case "backup.restored":
      text = detail.backupName ? t("backupName", { name: detail.backupName }) : null;
      break;
    case "maintenance.lock_cleared":
      text = t("lockCleared", { host: detail.lockHost ?? "?", operation: detail.lockKind ?? "?" });
      break;
    case "database.vacuumed":
      text = detail.freedBytes !== undefined ? t("freed", { bytes: formatBytes(detail.freedBytes, locale) }) : null;
      break;
    case "compaction.run":
    case "compaction.cancelled":
    case "checkpoints.cleanup":
    case "threads.expiry_run":
    case "threads.expiry_cancelled":
      text = detail.operationId ? t("operation", { id: detail.operationId }) : null;
      break;
    case "checkpoints.scheduled_cleanup":
    case "threads.expired": {
      const counts = { threads: detail.threads ?? 0, checkpoints: detail.checkpoints ?? 0, bytes: formatBytes(detail.freedBytes ?? 0, locale) };
      text = join(
        entry.kind === "threads.expired" ? t("expiredSummary", counts) : t("cleanedSummary", counts),
        detail.scheduled || entry.kind === "checkpoints.scheduled_cleanup" ? t("scheduledRun") : null,
        detail.operationId ? t("operation", { id: detail.operationId }) : null,
      );
      break;
    }
    case "user.created":
      text = join(entry.subjectEmail, detail.role ? t("newUser", { role: t(`roles.${detail.role}`) }) : null);
      break;
    case "user.disabled":
    case "user.sessions_ended":
    case "user.password_changed":
      text = join(subject, ended);
      break;
    case "user.password_reset":
      text = join(subject, ended, entry.result === "ok" ? t("mustChange") : null);
      break;
    case "user.enabled":
      text = subject;
      break;
    case "user.role_changed":
      text = join(
        subject,
        detail.role && detail.previousRole ? t("roleChange", { before: t(`roles.${detail.previousRole}`), after: t(`roles.${detail.role}`) }) : null,
      );
      break;
    case "auth.sign_in":
      text = null;
      break;
    case "task.hold_set":
    case "task.hold_released":
      text = detail.taskId ? t("taskRef", { id: detail.taskId }) : null;
      break;
    case "task.payloads_restored": {
      const notRestored = Object.values(detail.skipped ?? {}).reduce((sum, n) => sum + n, 0);
      text = join(
        detail.taskId ? t("taskRef", { id: detail.taskId }) : null,
        detail.restoredMessages !== undefined && detail.backupName
          ? t("restoredFrom", { count: detail.restoredMessages, bytes: formatBytes(detail.restoredBytes ?? 0, locale), name: detail.backupName })
          : null,
        notRestored > 0 ? t("notRestored", { count: notRestored }) : null,
        detail.hold ? t("restoreHeld") : null,
      );
      break;
    }
  }
  return text ? <p className={styles.mono}>{text}</p> : null;
}
