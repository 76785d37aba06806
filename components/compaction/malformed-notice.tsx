"use client";
// A stored record we cannot read blocks every deletion. Admins can always get
// out of it from here ("Disable is always available"): both actions PUT a
// disabled policy with the revision status reports for the damaged record,
// so nothing is deleted until a valid policy is enabled and prepared.
import { useTranslations } from "next-intl";
import { useState } from "react";
import type { CompactionStatusBody, PutPolicyBody } from "@/lib/compaction/api";
import type { useCompaction } from "@/lib/compaction/client/use-compaction";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

type Props = {
  status: CompactionStatusBody;
  isAdmin: boolean;
  format: CompactionFormat;
  save: ReturnType<typeof useCompaction>["save"];
};

export function MalformedNotice({ status, isAdmin, format, save }: Props) {
  const t = useTranslations("compaction.card");
  const [busy, setBusy] = useState<"defaults" | "off" | null>(null);
  const code = status.lastErrorCode ?? "settings_malformed";
  const replace = async (which: "defaults" | "off") => {
    // Status reports a malformed record as the default policy (disabled, the
    // default age) with the revision it could read: both actions store that.
    const body: PutPolicyBody = { policy: { enabled: false, age: status.policy.age }, expectedRevision: status.policy.revision };
    setBusy(which);
    try {
      await save(body);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className={styles.notice} data-testid="retention-malformed" role="alert">
      <p className={styles.errorTitle}>{t("malformedTitle")}</p>
      <p>{t("malformedBody", { code })}</p>
      <p data-testid="retention-malformed-reason">{t("malformedWhat", { reason: format.operationError(code) })}</p>
      {isAdmin && (
        <>
          <p className={styles.muted}>{t("malformedActions")}</p>
          <div className={styles.headerActions}>
            <button type="button" className={styles.primaryButton} disabled={busy !== null} onClick={() => void replace("defaults")} data-testid="retention-replace-defaults">
              {busy === "defaults" ? t("replacing") : t("replaceDefaults")}
            </button>
            <button type="button" className={styles.secondaryButton} disabled={busy !== null} onClick={() => void replace("off")} data-testid="retention-turn-off">
              {busy === "off" ? t("replacing") : t("turnOff")}
            </button>
          </div>
        </>
      )}
    </div>
  );
}
