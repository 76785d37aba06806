"use client";
// The savings estimate: "Not analyzed", a running analysis, or the latest
// result labelled an estimate over its scan, with explicit "stale" (older
// than 24 h or made for another age) and "partial" (progress, no total).
import { useTranslations } from "next-intl";
import type { OperationEvent } from "@/lib/events/api";
import type { CompactionAge, CompactionOperation } from "@/lib/compaction/policy";
import { fingerprintOf } from "@/lib/compaction/client/draft-model";
import { KindChart } from "./kind-chart";
import { OperationDetails } from "./operation-details";
import { OperationProgress } from "./operation-progress";
import type { CompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export type StaleReason = "age" | "draft" | null;

export function staleReason(analysis: CompactionOperation, draftAge: CompactionAge | null): StaleReason {
  if (draftAge && analysis.fingerprint && analysis.fingerprint !== fingerprintOf(draftAge)) return "draft";
  return analysis.stale ? "age" : null;
}

function analyzedAge(fingerprint: string | undefined): CompactionAge | null {
  const match = /^(weeks|months):(\d+)$/.exec(fingerprint ?? "");
  return match ? ({ unit: match[1], value: Number(match[2]) } as CompactionAge) : null;
}

export function Estimate(props: {
  analysis: CompactionOperation | null;
  active: CompactionOperation | null;
  live: OperationEvent | null;
  draftAge: CompactionAge | null;
  format: CompactionFormat;
  canCancel: boolean;
  cancelling: boolean;
  onCancel: () => void;
}) {
  const { analysis, active, format } = props;
  const t = useTranslations("compaction.estimate");
  const running = active?.kind === "analysis" ? active : null;
  return (
    <section className={styles.block} aria-labelledby="retention-estimate-title" data-testid="retention-estimate">
      <h4 id="retention-estimate-title" className={styles.blockTitle}>
        {t("title")}
      </h4>
      {running && <OperationProgress operation={running} live={props.live} format={format} canCancel={props.canCancel} cancelling={props.cancelling} onCancel={props.onCancel} />}
      {!analysis && !running && (
        <p data-testid="retention-not-analyzed">
          <span className={styles.chip}>{t("notAnalyzed")}</span> <span className={styles.muted}>{t("notAnalyzedHint")}</span>
        </p>
      )}
      {analysis && <AnalysisResult analysis={analysis} draftAge={props.draftAge} format={format} />}
    </section>
  );
}

function AnalysisResult(props: { analysis: CompactionOperation; draftAge: CompactionAge | null; format: CompactionFormat }) {
  const { analysis, format } = props;
  const t = useTranslations("compaction.estimate");
  const stale = staleReason(analysis, props.draftAge);
  const finished = format.time(analysis.finishedAt ?? analysis.startedAt);
  const age = analyzedAge(analysis.fingerprint);
  if (analysis.state === "failed") {
    return <p className={styles.warning}>{t("failed", { time: finished ?? "", reason: format.operationError(analysis.errorCode ?? "other") })}</p>;
  }
  const partial = analysis.state === "partial" || analysis.state === "cancelled";
  return (
    <div className={styles.result} data-testid="retention-analysis-result" data-state={analysis.state} data-stale={stale ?? "no"}>
      <p className={styles.chips}>
        <span className={styles.chip}>{t("estimateChip")}</span>
        {partial && <span className={`${styles.chip} ${styles.chipWarning}`}>{t("partialChip")}</span>}
        {stale && <span className={`${styles.chip} ${styles.chipWarning}`}>{t("staleChip")}</span>}
      </p>
      <p className={styles.bigNumber}>
        {partial
          ? t("partialResult", { bytes: format.bytes(analysis.payloadBytes), messages: analysis.eligibleMessages })
          : t("result", { bytes: format.bytes(analysis.payloadBytes), messages: analysis.eligibleMessages, tasks: analysis.eligibleTasks })}
      </p>
      {partial && (
        <p className={styles.muted} data-testid="retention-partial">
          {analysis.progress?.totalTasks
            ? t("partialProgressOf", { processed: analysis.progress.processedTasks, total: analysis.progress.totalTasks })
            : t("partialProgress", { processed: analysis.progress?.processedTasks ?? analysis.eligibleTasks })}
          {analysis.errorCode ? ` ${format.operationError(analysis.errorCode)}` : ""}
        </p>
      )}
      <p className={styles.muted}>
        {finished && age ? t("scanLabel", { time: finished, age: format.age(age) }) : finished ? t("scanLabelNoAge", { time: finished }) : null}
      </p>
      {stale === "age" && <p className={styles.warning}>{t("staleAge")}</p>}
      {stale === "draft" && <p className={styles.warning}>{t("staleDraft")}</p>}
      {analysis.byKind && <KindChart byKind={analysis.byKind} format={format} />}
      <OperationDetails operation={analysis} format={format} testId="retention-analysis-details" />
    </div>
  );
}
