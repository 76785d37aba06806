"use client";
// Automatic cleanup: the daily run of Clean up (the retention engine, which
// only removes what the contract allows), its switch for admins, the next
// and latest runs for everyone. The switch saves at once: turning the
// cleanup on deletes nothing Clean up would not.
import { useNow, useTranslations } from "next-intl";
import type { CleanupScheduleStatus } from "@/lib/checkpoints/maintenance-api";
import { useSaveCleanupSchedule } from "@/lib/checkpoints/client/use-save-cleanup-schedule";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { AutomaticSwitch } from "@/components/compaction/automatic-switch";
import { MaintenanceOperationLine } from "./maintenance-operation-line";
import styles from "./checkpoint-schedule.module.css";

export function CleanupScheduleSection({ status, isAdmin }: { status: CleanupScheduleStatus; isAdmin: boolean }) {
  const t = useTranslations("checkpoints.schedule");
  const errorText = useErrorMessage("checkpoints");
  const save = useSaveCleanupSchedule();
  const time = useFormatTime();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const enabled = status.policy.enabled;
  const nextMs = parseRfc3339(status.nextDueAt);
  const stateText = save.isPending ? t("saving") : enabled ? t("on") : t("off");
  return (
    <section className={styles.section} aria-labelledby="checkpoint-cleanup-schedule-title" data-testid="checkpoint-cleanup-schedule">
      <h4 id="checkpoint-cleanup-schedule-title" className={styles.subTitle}>
        {t("cleanup.title")}
      </h4>
      <p className={styles.muted}>{t("cleanup.explain")}</p>
      {status.recordState === "malformed" && <p className={styles.notice}>{t("malformed")}</p>}
      {isAdmin ? (
        <AutomaticSwitch
          idPrefix="checkpoint-cleanup-daily"
          testId="checkpoint-cleanup-switch"
          label={t("cleanup.switch")}
          checked={enabled}
          stateText={stateText}
          busy={save.isPending}
          onChange={(checked) => save.mutate({ enabled: checked, expectedRevision: status.policy.revision })}
        />
      ) : (
        <dl className={styles.facts} data-testid="checkpoint-cleanup-readonly">
          <dt className={styles.muted}>{t("cleanup.switch")}</dt>
          <dd>{enabled ? t("on") : t("off")}</dd>
        </dl>
      )}
      {save.isError && (
        <p className={styles.error} role="alert">
          {errorText(save.error)}
        </p>
      )}
      {enabled && (
        <p className={styles.line} data-testid="checkpoint-cleanup-next">
          {nextMs !== null ? t("nextRun", { time: time.absolute(nextMs), relative: time.relative(nextMs, now) }) : t("notScheduled")}
        </p>
      )}
      {status.activeOperation && <MaintenanceOperationLine operation={status.activeOperation} testId="checkpoint-cleanup-active" />}
      {status.latestRun ? (
        <div>
          <p className={styles.muted}>{t("lastRun")}</p>
          <MaintenanceOperationLine operation={status.latestRun} testId="checkpoint-cleanup-latest" />
        </div>
      ) : (
        enabled && <p className={styles.muted}>{t("lastRunNever")}</p>
      )}
    </section>
  );
}
