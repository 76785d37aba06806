"use client";
// Per-task restore for admins: choose a backup (the newest that covers every
// removal is preselected) and whether the task goes on hold, run the dry
// run, read its report, then confirm a restore whose consequence is spelt
// out (what comes back, from which backup, what stays as it is, the hold).
import { useLocale, useTranslations } from "next-intl";
import { useId, useState } from "react";
import type { RestoreSummary } from "@/lib/task-compaction/api";
import { formatBytes } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { useRestoreDryRun } from "@/lib/task-compaction/client/use-restore-dry-run";
import { useStartRestore } from "@/lib/task-compaction/client/use-start-restore";
import { BusyButton } from "@/components/ui/busy-button";
import { ErrorSummary } from "@/components/database/error-summary";
import { RestoreReportView } from "./restore-report";
import styles from "./task-compaction.module.css";

type Props = { taskId: string; summary: RestoreSummary; date: (iso: string | null) => string };

export function RestoreSection({ taskId, summary, date }: Props) {
  const t = useTranslations("taskCompaction.restore");
  const locale = useLocale();
  const errorMessage = useErrorMessage();
  const selectId = useId();
  const holdId = useId();
  const preferred = summary.backups.find((backup) => backup.coversAll) ?? summary.backups[0] ?? null;
  const [backup, setBackup] = useState<string | null>(preferred?.name ?? null);
  const [hold, setHold] = useState(true);
  const dryRun = useRestoreDryRun();
  const start = useStartRestore(taskId);
  const running = summary.latest?.state === "running";
  const chosen = summary.backups.find((entry) => entry.name === backup) ?? preferred;
  const report = dryRun.data && dryRun.data.backup.name === chosen?.name && dryRun.data.hold === hold ? dryRun.data : null;

  if (summary.backups.length === 0) {
    return (
      <div className={styles.section} data-testid="task-restore">
        <h3 className={styles.sectionTitle}>{t("title")}</h3>
        <p className={styles.warning} data-testid="task-restore-no-backup">
          {t("noBackup")}
        </p>
        <ExcludedNote summary={summary} />
      </div>
    );
  }

  const choose = (next: { backup?: string; hold?: boolean }) => {
    if (next.backup !== undefined) setBackup(next.backup);
    if (next.hold !== undefined) setHold(next.hold);
    dryRun.reset();
    start.reset();
  };
  const skipped = report ? report.counts.not_in_backup + report.counts.changed_since_compaction : 0;

  return (
    <div className={styles.section} data-testid="task-restore">
      <h3 className={styles.sectionTitle}>{t("title")}</h3>
      <p className={styles.muted}>{t("description")}</p>
      <div className={styles.field}>
        <label htmlFor={selectId} className={styles.label}>
          {t("backup")}
        </label>
        <select id={selectId} className={styles.select} value={chosen?.name ?? ""} onChange={(event) => choose({ backup: event.target.value })} disabled={running} data-testid="task-restore-backup">
          {summary.backups.map((entry) => (
            <option key={entry.name} value={entry.name}>
              {t(entry.preparation ? "backupOptionPreparation" : "backupOption", { date: date(entry.createdAt), size: formatBytes(entry.sizeBytes, locale) })}
            </option>
          ))}
        </select>
        {chosen && (
          <span className={styles.muted} data-testid="task-restore-verification" data-state={chosen.verification}>
            {t(chosen.verification === "verified" ? "verified" : "unverified")}
          </span>
        )}
        {chosen && chosen.heldMessages !== null && (
          <span className={styles.muted} data-testid="task-restore-held-messages">
            {t("heldMessages", { held: chosen.heldMessages, count: summary.compacted.messages })}
          </span>
        )}
        {chosen?.preparation && <span className={styles.muted}>{t("preparationNote")}</span>}
        {chosen && !chosen.coversAll && <span className={styles.muted}>{t("partialCoverage")}</span>}
        <ExcludedNote summary={summary} />
      </div>
      <div className={styles.switchRow}>
        <div className={styles.switchText}>
          <label htmlFor={holdId} className={styles.label}>
            {t("hold")}
          </label>
          <span className={styles.muted} id={`${holdId}-hint`}>
            {t("holdHint")}
          </span>
        </div>
        <button
          id={holdId}
          type="button"
          role="switch"
          className={styles.switch}
          aria-checked={hold}
          aria-describedby={`${holdId}-hint`}
          disabled={running}
          onClick={() => choose({ hold: !hold })}
          data-testid="task-restore-hold"
        >
          <span className={styles.switchThumb} aria-hidden="true" />
        </button>
      </div>
      <div className={styles.actions}>
        <button
          type="button"
          className={styles.button}
          // Busy, not disabled, while the check runs: keyboard focus stays on the button.
          disabled={running}
          aria-busy={dryRun.isPending}
          onClick={() => {
            if (!dryRun.isPending) dryRun.mutate({ taskId, backup: chosen?.name ?? null, hold });
          }}
          data-testid="task-restore-check"
        >
          {dryRun.isPending ? t("checking") : t("check")}
        </button>
      </div>
      {dryRun.isError && <ErrorSummary title={t("checkFailed")} message={errorMessage(dryRun.error)} error={dryRun.error} focusOnMount />}
      {report && <RestoreReportView report={report} />}
      {report && !start.isSuccess && (
        <section className={styles.confirm} aria-labelledby="task-restore-confirm-title" data-testid="task-restore-confirm">
          {report.counts.restorable === 0 ? (
            <p id="task-restore-confirm-title">{t("nothingRestorable")}</p>
          ) : (
            <>
              <h4 id="task-restore-confirm-title" className={styles.sectionTitle}>
                {t("confirmTitle", { count: report.counts.restorable })}
              </h4>
              <ul>
                <li>{t("confirmWhat", { count: report.counts.restorable, bytes: formatBytes(report.restorableBytes, locale), name: report.backup.name, date: date(report.backup.createdAt) })}</li>
                {skipped > 0 && <li>{t("confirmSkipped", { count: skipped })}</li>}
                <li>{report.hold ? t("confirmHoldOn") : t("confirmHoldOff")}</li>
                <li>{t("confirmRest")}</li>
              </ul>
              {start.isError && <ErrorSummary title={t("startFailed")} message={errorMessage(start.error)} error={start.error} focusOnMount />}
              <div className={styles.actions}>
                <BusyButton
                  className={styles.buttonPrimary}
                  busy={start.isPending}
                  label={t("confirm", { count: report.counts.restorable })}
                  busyLabel={t("starting")}
                  onClick={() => {
                    if (!running) start.mutate({ backup: report.backup.name, hold: report.hold });
                  }}
                  data-testid="task-restore-confirm-button"
                />
                <button type="button" className={styles.button} onClick={() => dryRun.reset()} disabled={start.isPending}>
                  {t("cancel")}
                </button>
              </div>
            </>
          )}
        </section>
      )}
    </div>
  );
}

/** Backups the list left out, and why (the server counts them: failed their check, or hold none of the task's removed messages). */
function ExcludedNote({ summary }: { summary: RestoreSummary }) {
  const t = useTranslations("taskCompaction.restore");
  const { failed, withoutMessages } = summary.excluded;
  if (failed === 0 && withoutMessages === 0) return null;
  return (
    <span className={styles.muted} data-testid="task-restore-excluded">
      {failed > 0 && t("excludedFailed", { count: failed })}
      {failed > 0 && withoutMessages > 0 && " "}
      {withoutMessages > 0 && t("excludedWithout", { count: withoutMessages })}
    </span>
  );
}
