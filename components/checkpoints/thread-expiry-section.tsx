"use client";
// Thread expiry: what it does, the admin's form (or the policy read-only for
// members), and its state for everyone: the backup preparation, the next
// pass and the maintenance window, the running operation (admins can cancel
// it), the latest pass with "Expire threads now", and how many threads
// expired so far.
import { useLocale, useNow, useTranslations } from "next-intl";
import type { ExpiryStatus } from "@/lib/checkpoints/maintenance-api";
import { useThreadExpiryOperation } from "@/lib/checkpoints/client/use-thread-expiry-operation";
import { formatBytes } from "@/lib/i18n/format";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { RunNowButton } from "@/components/compaction/run-now-button";
import { WindowNote } from "@/components/compaction/window-note";
import { useAgeText } from "./expiry-analysis";
import { ExpiryForm } from "./expiry-form";
import { MaintenanceOperationLine } from "./maintenance-operation-line";
import { useReasonText } from "./use-reason-text";
import styles from "./checkpoint-schedule.module.css";

function Preparation({ status }: { status: ExpiryStatus }) {
  const t = useTranslations("checkpoints.schedule.expiry");
  const locale = useLocale();
  const time = useFormatTime();
  const reason = useReasonText();
  const prep = status.preparation;
  const receipt = prep.receipt;
  const at = (text: string) => {
    const ms = parseRfc3339(text);
    return ms === null ? "" : time.absolute(ms);
  };
  if (prep.state === "pending" || prep.state === "running") {
    const bytes = prep.backupBytes;
    return (
      <p className={styles.notice} role="status" data-testid="expiry-preparing">
        {bytes && bytes.totalBytes !== null ? t("preparing", { done: formatBytes(bytes.doneBytes, locale), total: formatBytes(bytes.totalBytes, locale) }) : t("preparingUnknown")}
      </p>
    );
  }
  if (prep.state === "failed") return <p className={styles.error}>{t("preparationFailed", { reason: reason(prep.errorCode) })}</p>;
  if (receipt && "name" in receipt) return <p className={styles.muted} data-testid="expiry-receipt">{t("receiptBackup", { name: receipt.name, size: formatBytes(receipt.sizeBytes, locale), time: at(receipt.completedAt) })}</p>;
  if (receipt && "skippedAt" in receipt) return <p className={styles.muted}>{t("receiptSkip", { time: at(receipt.skippedAt) })}</p>;
  return null;
}

export function ThreadExpirySection({ status, isAdmin }: { status: ExpiryStatus; isAdmin: boolean }) {
  const t = useTranslations("checkpoints.schedule");
  const time = useFormatTime();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const ageText = useAgeText();
  const operation = useThreadExpiryOperation();
  const active = status.activeOperation;
  const nextMs = parseRfc3339(status.nextDueAt);
  const cancelling = operation.isPending && operation.variables?.kind === "cancel";
  return (
    <section className={styles.section} aria-labelledby="thread-expiry-title" data-testid="thread-expiry">
      <h4 id="thread-expiry-title" className={styles.subTitle}>
        {t("expiry.title")}
      </h4>
      <p className={styles.muted}>{t("expiry.explain")}</p>
      {status.recordState === "malformed" && <p className={styles.notice}>{t("malformed")}</p>}
      {isAdmin ? (
        <ExpiryForm status={status} />
      ) : (
        <dl className={styles.facts} data-testid="expiry-readonly">
          <dt className={styles.muted}>{t("expiry.readOnlyState")}</dt>
          <dd>{status.policy.enabled ? t("on") : t("off")}</dd>
          <dt className={styles.muted}>{t("expiry.readOnlyAge")}</dt>
          <dd>{ageText(status.policy.age)}</dd>
        </dl>
      )}
      <Preparation status={status} />
      {status.policy.enabled && (
        <p className={styles.line} data-testid="expiry-next">
          {status.armed ? (nextMs !== null ? t("nextRun", { time: time.absolute(nextMs), relative: time.relative(nextMs, now) }) : t("notScheduled")) : t("expiry.armedNo")}
        </p>
      )}
      {status.maintenanceWindow && status.policy.enabled && <WindowNote window={status.maintenanceWindow} />}
      {active && (
        <div className={styles.actions}>
          <MaintenanceOperationLine operation={active} testId="expiry-active" />
          {isAdmin && (active.state === "queued" || active.state === "running" || active.state === "partial") && (
            <button type="button" className={styles.button} disabled={cancelling} aria-busy={cancelling} onClick={() => operation.mutate({ kind: "cancel", operationId: active.id })}>
              {cancelling ? t("cancelling") : t("cancel")}
            </button>
          )}
        </div>
      )}
      {status.latestRun && (
        <div>
          <p className={styles.muted}>{t("lastRun")}</p>
          <MaintenanceOperationLine operation={status.latestRun} testId="expiry-latest" />
        </div>
      )}
      {isAdmin && status.armed && !active && (
        <div className={styles.actions}>
          <RunNowButton
            window={status.maintenanceWindow}
            label={t("expiry.runNow")}
            testIdPrefix="expiry"
            starting={operation.isPending && operation.variables?.kind === "run"}
            onRun={(options) => operation.mutate({ kind: "run", expectedRevision: status.policy.revision, ...options })}
          />
        </div>
      )}
      <p className={styles.muted} data-testid="expiry-count">
        {status.expiredThreads === 0 ? t("expiry.expiredNone") : t("expiry.expiredCount", { count: status.expiredThreads })}
      </p>
    </section>
  );
}
