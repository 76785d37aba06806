"use client";
// The confirmation of every Messages compaction change that removes data:
// turning it on (first time or again), shortening the period, and "Compact
// messages now". One dialog states the consequence from a current analysis
// of the age the change uses; when the latest one is missing, stale, older
// than the last pass or for another age, the dialog runs one first and shows
// its progress. Then: when it starts (now, or the maintenance window's next
// opening in the viewer's zone), what backup holds the payloads, and that
// only a restore brings them back. Cancel sends nothing.
import { useNow, useTranslations } from "next-intl";
import { useCallback, useRef, useState } from "react";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import type { CompactionAge, CompactionOperation } from "@/lib/compaction/policy";
import { fingerprintOf, type BackupChoice } from "@/lib/compaction/client/draft-model";
import type { OperationEvent } from "@/lib/events/api";
import { useFormatTime } from "@/lib/i18n/use-format-time";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { ConfirmDialog, Consequences } from "@/components/ui/confirm-dialog";
import { OperationProgress } from "./operation-progress";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export type RemovalKind = "enable" | "reenable" | "shorten" | "run";

/** The latest analysis, if it describes what `age` would remove now: succeeded, fresh, for that age, newer than the last pass. */
export function currentAnalysis(status: CompactionStatusBody, age: CompactionAge): CompactionOperation | null {
  const analysis = status.latestAnalysis;
  if (!analysis || analysis.state !== "succeeded" || analysis.stale) return null;
  if (analysis.fingerprint !== fingerprintOf(age)) return null;
  const run = status.latestRun;
  const analysedAt = parseRfc3339(analysis.finishedAt);
  const ranAt = parseRfc3339(run?.finishedAt ?? run?.startedAt ?? null);
  if (analysedAt === null || (ranAt !== null && ranAt > analysedAt)) return null;
  return analysis;
}

export type RemovalRequest = { kind: RemovalKind; age: CompactionAge; choice: BackupChoice | null };

/** counting: the dialog asked for an analysis (its id once accepted), or it could not. */
type Pending = RemovalRequest & { counting: "no" | "requested" | "failed"; analysisId?: string };

type Analyze = (age: CompactionAge) => Promise<{ ok: true; value: { operationId: string } } | { ok: false }>;

/**
 * Asks for a confirmation: `request` opens the dialog (starting an analysis
 * of the age first when none is current) and resolves true on Confirm,
 * false on Cancel or Escape.
 */
export function useRemovalConfirm(options: { status: CompactionStatusBody | undefined; analyze: Analyze }) {
  const { status, analyze } = options;
  const [pending, setPending] = useState<Pending | null>(null);
  const resolver = useRef<((confirmed: boolean) => void) | null>(null);
  const request = useCallback(
    (next: RemovalRequest) =>
      new Promise<boolean>((resolve) => {
        resolver.current?.(false);
        resolver.current = resolve;
        const needsCount = !!status && !currentAnalysis(status, next.age);
        const canCount = !!status && (!status.activeOperation || status.betweenSlices === true);
        setPending({ ...next, counting: needsCount && canCount ? "requested" : "no" });
        if (needsCount && canCount) {
          void analyze(next.age).then((result) => {
            setPending((current) => (current ? (result.ok ? { ...current, analysisId: result.value.operationId } : { ...current, counting: "failed" }) : current));
          });
        }
      }),
    [status, analyze],
  );
  const settle = useCallback((confirmed: boolean) => {
    const resolve = resolver.current;
    resolver.current = null;
    setPending(null);
    resolve?.(confirmed);
  }, []);
  return { request, pending, confirm: () => settle(true), cancel: () => settle(false) };
}

type Props = {
  pending: Pending | null;
  status: CompactionStatusBody;
  live: OperationEvent | null;
  format: CompactionFormat;
  onConfirm: () => void;
  onCancel: () => void;
};

function useStartTime(status: CompactionStatusBody, kind: RemovalKind, choice: BackupChoice | null) {
  const t = useTranslations("compaction.confirm");
  const time = useFormatTime();
  const now = useNow({ updateInterval: 60_000 }).getTime();
  const window = status.maintenanceWindow;
  const closed = !!window && !window.open;
  const nextMs = parseRfc3339(window?.nextStartAt ?? null);
  const opening = nextMs === null ? null : { time: time.absolute(nextMs), relative: time.relative(nextMs, now) };
  if (kind === "run") return closed && opening ? t("whenRunOutside", opening) : t("whenRunNow");
  const afterBackup = choice === "backup";
  if (closed && opening) return afterBackup ? t("whenBackupThenWindow", opening) : t("whenWindow", opening);
  return afterBackup ? t("whenBackupThenNow") : t("whenNow");
}

function useBackupLine(status: CompactionStatusBody, kind: RemovalKind, choice: BackupChoice | null, format: CompactionFormat) {
  const t = useTranslations("compaction.confirm");
  if (kind !== "run") return choice === "backup" ? t("backupNew") : t("backupSkipped");
  const receipt = status.preparation.receipt;
  if (receipt && "name" in receipt) return t("backupReceipt", { name: receipt.name, time: format.time(receipt.completedAt) ?? "" });
  if (receipt && "skippedAt" in receipt) return t("backupSkippedAt", { time: format.time(receipt.skippedAt) ?? "" });
  return t("backupSkipped");
}

export function RemovalConfirm(props: Props) {
  const { pending, status, live, format } = props;
  const t = useTranslations("compaction.confirm");
  const kind = pending?.kind ?? "run";
  const age = pending?.age ?? status.policy.age;
  const choice = pending?.choice ?? null;
  const analysis = currentAnalysis(status, age);
  const active = status.activeOperation;
  const analysing = active?.kind === "analysis" ? active : null;
  const canAnalyze = !active || status.betweenSlices === true;
  const when = useStartTime(status, kind, choice);
  const backup = useBackupLine(status, kind, choice, format);
  // Counting: the dialog's own analysis was asked for and has not ended yet
  // (once it ends it is the latest analysis: current, or the reason it is not).
  const waiting = !analysis && pending?.counting === "requested" && (pending.analysisId === undefined || status.latestAnalysis?.id !== pending.analysisId);
  const removed = analysis
    ? analysis.eligibleMessages === 0
      ? t("removedNothing")
      : t("removed", { bytes: format.bytes(analysis.payloadBytes), messages: analysis.eligibleMessages, tasks: analysis.eligibleTasks })
    : null;
  return (
    <ConfirmDialog
      open={pending !== null}
      testId="retention-confirm"
      title={t(`title.${kind}`)}
      confirmLabel={t(`confirm.${kind}`)}
      busyLabel={t("counting")}
      cancelLabel={t("cancel")}
      busy={waiting}
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
    >
      <Consequences
        testId="retention-confirm-consequences"
        items={[
          {
            key: "removed",
            label: t("removedLabel"),
            value: (
              <>
                {removed && <span data-testid="retention-confirm-removed">{removed}</span>}
                {waiting && analysing && <OperationProgress operation={analysing} live={live} format={format} canCancel={false} cancelling={false} onCancel={() => {}} />}
                {waiting && !analysing && <span className={styles.muted}>{t("counting")}</span>}
                {!analysis && !waiting && <span className={styles.warning} data-testid="retention-confirm-uncounted">{t(pending?.counting === "failed" || canAnalyze ? "uncountedFailed" : "uncountedBusy")}</span>}
                <span className={styles.muted}>{t("removedWhat")}</span>
              </>
            ),
          },
          ...(analysis
            ? [
                {
                  key: "basis",
                  label: t("basisLabel"),
                  value: (
                    <span data-testid="retention-confirm-basis" data-analysis-id={analysis.id}>
                      {t("basis", { age: format.age(age), time: format.timeSeconds(analysis.finishedAt) ?? "" })}
                    </span>
                  ),
                },
              ]
            : []),
          { key: "when", label: t("whenLabel"), value: <span data-testid="retention-confirm-when">{when}</span> },
          { key: "backup", label: t("backupLabel"), value: <span data-testid="retention-confirm-backup">{backup}</span> },
          { key: "undo", label: t("undoLabel"), value: t("undo") },
        ]}
      />
    </ConfirmDialog>
  );
}
