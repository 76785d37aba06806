"use client";

import { useLocale, useTranslations } from "next-intl";
import type { AuditEntry, AuditPolicyView } from "@/lib/audit/api";
import { formatBytes } from "@/lib/i18n/format";
import styles from "@/components/database/cards.module.css";

function usePolicyText() {
  const t = useTranslations("activity");
  return (policy: AuditPolicyView | null | undefined): string => {
    if (!policy || !policy.enabled) return t("policyOff");
    const age = policy.age.unit === "weeks" ? t("ageWeeks", { count: policy.age.value }) : t("ageMonths", { count: policy.age.value });
    return t("policyOn", { age });
  };
}

/** One line saying what the entry changed, from its allowlisted detail. */
export function AuditDetailLine({ entry }: { entry: AuditEntry }) {
  const t = useTranslations("activity");
  const locale = useLocale();
  const policyText = usePolicyText();
  const { detail } = entry;
  let text: string | null = null;
  switch (entry.kind) {
    case "policy.changed":
      text =
        entry.result === "ok"
          ? t("policyChange", { before: policyText(detail.before), after: policyText(detail.after), revision: detail.revision ?? 0 })
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
    case "database.vacuumed":
      text = detail.freedBytes !== undefined ? t("freed", { bytes: formatBytes(detail.freedBytes, locale) }) : null;
      break;
    case "compaction.run":
    case "compaction.cancelled":
    case "checkpoints.cleanup":
      text = detail.operationId ? t("operation", { id: detail.operationId }) : null;
      break;
    case "user.created":
      text = detail.role ? t("newUser", { role: t(`roles.${detail.role}`) }) : null;
      break;
    case "auth.sign_in":
      text = null;
      break;
  }
  return text ? <p className={styles.mono}>{text}</p> : null;
}
