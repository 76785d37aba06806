"use client";
// Analyze and Clean up. Clean up is unavailable until an analysis of the
// current state exists (the status's cleanup readiness), and says why; when
// it is available it opens one confirmation with that analysis's numbers,
// when it starts, what backup holds the checkpoints, and that only a
// restore brings them back. The run names the analysis, so the server
// refuses it (analysis_outdated) if the checkpoints changed meanwhile.
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useId, useState } from "react";
import type { CheckpointStorageStatus, RetentionResult } from "@/lib/checkpoints/api";
import { useStartCheckpointOperation } from "@/lib/checkpoints/client/use-start-checkpoint-operation";
import { useBackups } from "@/lib/database/client/use-backups";
import { formatBytes, formatDateTime } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { ConfirmDialog, Consequences } from "@/components/ui/confirm-dialog";
import { reclaimedTotals } from "./operation-result";
import styles from "./checkpoint-storage-card.module.css";

function CleanupConsequences({ analysis }: { analysis: RetentionResult }) {
  const t = useTranslations("checkpoints.confirm");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const backups = useBackups();
  const removed = reclaimedTotals(analysis);
  const newest = backups.data?.backups[0] ?? null;
  const newestMs = newest ? parseRfc3339(newest.createdAt) : null;
  const backup = backups.isPending
    ? t("backupLoading")
    : newest
      ? t("backupNewest", { name: newest.name, time: newestMs === null ? newest.createdAt : formatDateTime(newestMs, locale, timeZone) })
      : t("backupNone");
  return (
    <>
      <Consequences
        testId="checkpoint-confirm-consequences"
        items={[
          {
            key: "removed",
            label: t("removedLabel"),
            value: (
              <>
                <span data-testid="checkpoint-confirm-removed">
                  {t("removed", {
                    checkpoints: removed.checkpoints,
                    writes: removed.writes,
                    bytes: formatBytes(removed.checkpointBytes + removed.writesBytes, locale),
                    threads: analysis.threadsChanged,
                  })}
                </span>
                <span className={styles.muted}>{t("removedFile")}</span>
              </>
            ),
          },
          {
            key: "basis",
            label: t("basisLabel"),
            value: <span data-testid="checkpoint-confirm-basis">{t("basis", { time: formatDateTime(analysis.finishedAtMs, locale, timeZone, { seconds: true }) })}</span>,
          },
          { key: "when", label: t("whenLabel"), value: t("when") },
          { key: "kept", label: t("keptLabel"), value: t("kept") },
          { key: "backup", label: t("backupLabel"), value: <span data-testid="checkpoint-confirm-backup">{backup}</span> },
          { key: "undo", label: t("undoLabel"), value: t("undo") },
        ]}
      />
    </>
  );
}

export function CheckpointActions({ status, isAdmin }: { status: CheckpointStorageStatus; isAdmin: boolean }) {
  const t = useTranslations("checkpoints.actions");
  const tc = useTranslations("checkpoints.confirm");
  const errorText = useErrorMessage("checkpoints");
  const start = useStartCheckpointOperation();
  // The analysis the confirmation shows, kept while it is open: a refusal
  // (analysis_outdated) stays on screen beside the numbers it was about.
  const [confirming, setConfirming] = useState<RetentionResult | null>(null);
  const reasonId = useId();
  if (!isAdmin) return <p className={styles.muted} data-testid="checkpoint-admin-only">{t("adminOnly")}</p>;
  const active = status.operation;
  const busy = active !== null || start.isPending;
  const readiness = status.cleanup ?? { reason: "no_analysis" as const, analysisId: null };
  const analysis = readiness.reason === "ready" && status.lastResult?.kind === "analysis" ? status.lastResult : null;
  const canClean = !busy && analysis !== null;
  const pendingKind = start.isPending ? start.variables?.kind : undefined;
  const label = (kind: "analysis" | "cleanup") => {
    if (active?.kind === kind || pendingKind === kind) return kind === "analysis" ? t("analyzing") : t("running");
    return kind === "analysis" ? t("analyze") : t("run");
  };
  const confirm = () => {
    if (!confirming) return;
    start.mutate({ kind: "cleanup", analysisId: confirming.operationId }, { onSuccess: () => setConfirming(null) });
  };
  const refused = start.isError && confirming !== null;
  return (
    <div className={styles.section}>
      <p className={styles.muted}>{t("explain")}</p>
      <div className={styles.actions}>
        <button
          type="button"
          className={styles.button}
          disabled={busy}
          aria-busy={active?.kind === "analysis"}
          onClick={() => {
            start.reset();
            start.mutate({ kind: "analysis" });
          }}
          data-testid="checkpoint-analyze"
        >
          {label("analysis")}
        </button>
        <button
          type="button"
          className={styles.buttonDanger}
          disabled={!canClean}
          aria-busy={active?.kind === "cleanup"}
          aria-describedby={readiness.reason === "ready" ? undefined : reasonId}
          onClick={() => {
            start.reset();
            setConfirming(analysis);
          }}
          data-testid="checkpoint-cleanup"
        >
          {label("cleanup")}
        </button>
      </div>
      {readiness.reason !== "ready" && readiness.reason !== "running" && (
        <p id={reasonId} className={styles.muted} data-testid="checkpoint-cleanup-reason" data-reason={readiness.reason}>
          {t(`unavailable.${readiness.reason}`)}
        </p>
      )}
      {active && (
        <p className={styles.notice} role="status" data-testid="checkpoint-busy">
          {active.kind === "analysis" ? t("busyAnalysis") : active.kind === "cleanup" ? t("busyCleanup") : t("busyExpiry")}
        </p>
      )}
      {start.isError && confirming === null && (
        <p className={styles.error} role="alert">
          {errorText(start.error)}
        </p>
      )}
      <ConfirmDialog
        open={confirming !== null}
        testId="checkpoint-confirm"
        title={tc("title")}
        confirmLabel={tc("confirm")}
        busyLabel={t("running")}
        cancelLabel={tc("cancel")}
        busy={start.isPending}
        confirmDisabled={refused}
        onConfirm={confirm}
        onCancel={() => {
          setConfirming(null);
          start.reset();
        }}
        error={refused ? errorText(start.error) : null}
      >
        {confirming && <CleanupConsequences analysis={confirming} />}
      </ConfirmDialog>
    </div>
  );
}
