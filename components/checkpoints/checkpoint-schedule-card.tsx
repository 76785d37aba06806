"use client";
// Scheduled checkpoint maintenance (Database page, beside Agent checkpoints):
// the daily automatic cleanup and thread expiry. Loading, error (with retry),
// unsupported and read-only states; every mutation is checked by the API too.
import { useTranslations } from "next-intl";
import { useCleanupSchedule } from "@/lib/checkpoints/client/use-cleanup-schedule";
import { useThreadExpiry } from "@/lib/checkpoints/client/use-thread-expiry";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { Card } from "@/components/ui/card";
import { CleanupScheduleSection } from "./cleanup-schedule-section";
import { ThreadExpirySection } from "./thread-expiry-section";
import styles from "./checkpoint-schedule.module.css";

export function CheckpointScheduleCard({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("checkpoints.schedule");
  const errorText = useErrorMessage("checkpoints");
  const cleanup = useCleanupSchedule();
  const expiry = useThreadExpiry();
  const failed = cleanup.error ?? expiry.error;
  const unsupported = cleanup.data?.capability === "unsupported" || expiry.data?.capability === "unsupported";
  return (
    <Card
      classes={styles}
      titleId="checkpoint-schedule-title"
      title={t("title")}
      header={<p className={styles.muted}>{t("description")}</p>}
      busy={cleanup.isFetching || expiry.isFetching}
      testId="checkpoint-schedule-card"
    >
      {(cleanup.isPending || expiry.isPending) && !failed && <div className={styles.skeleton} role="status" aria-label={t("loading")} />}
      {failed && (
        <div className={styles.error} role="alert" data-testid="checkpoint-schedule-error">
          <p>{t("loadFailed")}</p>
          <p>{errorText(failed)}</p>
          <div>
            <button type="button" className={styles.button} onClick={() => void Promise.all([cleanup.refetch(), expiry.refetch()])}>
              {t("retry")}
            </button>
          </div>
        </div>
      )}
      {unsupported && <p className={styles.notice}>{t("unsupported")}</p>}
      {!isAdmin && !unsupported && <p className={styles.muted} data-testid="checkpoint-schedule-read-only">{t("readOnly")}</p>}
      {cleanup.data && !unsupported && <CleanupScheduleSection status={cleanup.data} isAdmin={isAdmin} />}
      {expiry.data && !unsupported && <ThreadExpirySection status={expiry.data} isAdmin={isAdmin} />}
    </Card>
  );
}
