"use client";
// Last and next run, "Compact messages now", and the active run's progress.
// The outcome, its time and any error sit outside the expandable details.
import { useTranslations } from "next-intl";
import type { OperationEvent } from "@/lib/events/api";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import type { CompactionOperation } from "@/lib/compaction/policy";
import { OperationDetails } from "./operation-details";
import { OperationProgress } from "./operation-progress";
import { RunNowButton } from "./run-now-button";
import { WindowNote } from "./window-note";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export type RunControls = { starting: boolean; cancelling: boolean; onRun: () => void; onCancel: () => void } | null;

export function RunPanel(props: { status: CompactionStatusBody; live: OperationEvent | null; format: CompactionFormat; controls: RunControls }) {
  const { status, format, controls } = props;
  const t = useTranslations("compaction.run");
  const active = status.activeOperation;
  const running = active && active.kind !== "analysis" ? active : null;
  const last = status.latestRun;
  const next = format.timeWithRelative(status.nextDueAt);
  return (
    <section className={styles.block} aria-labelledby="retention-run-title" data-testid="retention-run">
      <h4 id="retention-run-title" className={styles.blockTitle}>
        {t("title")}
      </h4>
      <dl className={styles.detailList}>
        <dt>{t("last")}</dt>
        <dd data-testid="retention-last-run">{last ? <RunOutcome run={last} format={format} /> : t("never")}</dd>
        <dt>{t("next")}</dt>
        <dd data-testid="retention-next-run">{next ?? (status.armed ? t("afterCurrent") : t("notScheduled"))}</dd>
      </dl>
      {status.maintenanceWindow && <WindowNote window={status.maintenanceWindow} />}
      {showLastError(status) && <p className={styles.warning}>{t("lastError", { reason: format.operationError(status.lastErrorCode ?? "other") })}</p>}
      {active && status.waitingForWorker && (
        <p className={styles.warning} role="status" data-testid="retention-waiting-for-worker">
          {t("waitingForWorker")}
        </p>
      )}
      {running && (
        <OperationProgress
          operation={running}
          live={props.live}
          format={format}
          canCancel={!!controls && (running.kind === "cleanup" || running.kind === "preparation")}
          cancelling={controls?.cancelling ?? false}
          onCancel={() => controls?.onCancel()}
        />
      )}
      {/* Between slices of a pass, "compact now" takes the slot and the pass resumes after it. */}
      {controls && (!active || status.betweenSlices) && status.armed && (
        <RunNowButton starting={controls.starting} onRun={controls.onRun} />
      )}
      {controls && !status.armed && <p className={styles.muted}>{t("notArmed")}</p>}
      {last && <OperationDetails operation={last} format={format} testId="retention-run-details" />}
    </section>
  );
}

/** The stored last error, unless a later run succeeded or it only records a cancellation. */
function showLastError(status: CompactionStatusBody): boolean {
  const code = status.lastErrorCode;
  if (!code || code === "cancelled") return false;
  return status.latestRun?.state !== "succeeded" || status.preparation.state === "failed";
}

function RunOutcome(props: { run: CompactionOperation; format: CompactionFormat }) {
  const { run, format } = props;
  const t = useTranslations("compaction.run.outcome");
  const time = format.time(run.finishedAt ?? run.startedAt) ?? "";
  const values = { time, messages: run.changedMessages, bytes: format.bytes(run.payloadBytes) };
  return (
    <span data-testid="retention-run-outcome" data-state={run.state}>
      {t(run.state, values)}
      {run.errorCode && run.state !== "succeeded" ? ` ${format.operationError(run.errorCode)}` : ""}
    </span>
  );
}
