"use client";
// A 409 on save: the user's draft stays, the server's current policy is shown
// beside it, and the user picks which one to continue from.
import { useTranslations } from "next-intl";
import type { CompactionPolicy } from "@/lib/compaction/policy";
import type { PolicyDraftForm } from "@/lib/compaction/client/draft-model";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export function ConflictNotice(props: { server: CompactionPolicy; mine: PolicyDraftForm; format: CompactionFormat; onUseServer: () => void; onKeepMine: () => void }) {
  const t = useTranslations("compaction.conflict");
  const describe = (enabled: boolean, age: string) => (enabled ? t("policyOn", { age }) : t("policyOff", { age }));
  const mineAge = /^\d+$/.test(props.mine.ageValue.trim()) ? props.format.age({ value: Number(props.mine.ageValue), unit: props.mine.ageUnit } as CompactionPolicy["age"]) : props.mine.ageValue;
  return (
    <div className={styles.conflict} role="group" aria-labelledby="retention-conflict-title" data-testid="retention-conflict">
      <p id="retention-conflict-title" className={styles.errorTitle}>
        {t("title")}
      </p>
      <p>{t("body")}</p>
      <dl className={styles.detailList}>
        <dt>{t("server")}</dt>
        <dd data-testid="retention-conflict-server">{describe(props.server.enabled, props.format.age(props.server.age))}</dd>
        <dt>{t("mine")}</dt>
        <dd>{describe(props.mine.enabled, mineAge)}</dd>
      </dl>
      <div className={styles.inlineActions}>
        <button type="button" className={styles.secondaryButton} onClick={props.onUseServer}>
          {t("useServer")}
        </button>
        <button type="button" className={styles.secondaryButton} onClick={props.onKeepMine}>
          {t("keepMine")}
        </button>
      </div>
    </div>
  );
}
