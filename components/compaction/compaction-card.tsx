"use client";
// Messages compaction (Data & Logs > Database). Control order, as the spec
// lists it: description; age controls + Analyze savings; estimate; the
// Automatic compaction switch; backup review; last/next run + Compact
// messages now. Saving goes through the page-level save bar (contributor
// system:tool-payload-retention); there is no Save button in the card.
import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { useSaveContributor } from "@/components/settings/save-bar/use-save-contributor";
import type { SaveBarStore } from "@/components/settings/save-bar/save-bar-store";
import { useOperationEvents } from "@/lib/compaction/client/use-operation-events";
import { useCompaction } from "@/lib/compaction/client/use-compaction";
import { useCompactionDraft } from "@/lib/compaction/client/use-compaction-draft";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import { Card } from "@/components/ui/card";
import { AgeControls } from "./age-controls";
import { AutomaticSwitch } from "./automatic-switch";
import { BackupReview } from "./backup-review";
import { ConflictNotice } from "./conflict-notice";
import { ErrorSummary } from "./error-summary";
import { MalformedNotice } from "./malformed-notice";
import { Estimate } from "./estimate";
import { RunPanel } from "./run-panel";
import { policyState } from "./status-state";
import { useCompactionFormat } from "./use-compaction-format";
import styles from "./retention-card.module.css";

export const SAVE_CONTRIBUTOR_ID = "system:tool-payload-retention";

/** isAdmin comes from the session on the server, like every Database card; the API still checks each mutation. */
export function CompactionCard({ isAdmin, saveBarStore }: { isAdmin: boolean; saveBarStore?: SaveBarStore }) {
  const t = useTranslations("compaction.card");
  const format = useCompactionFormat();
  const retention = useCompaction();
  const { status } = retention;
  const supported = status?.capability === "supported" && status.recordState !== "malformed";
  const events = useOperationEvents({ enabled: !!status && status.capability === "supported" });
  const draft = useCompactionDraft({
    serverPolicy: supported ? status?.policy : undefined,
    preparationFailed: status?.preparation.state === "failed",
    approved: supported ? status?.armed : undefined,
  });
  const { save: saveDraft, discard } = draft;
  const save = useCallback(() => saveDraft(retention.save), [saveDraft, retention.save]);

  useSaveContributor({
    id: SAVE_CONTRIBUTOR_ID,
    label: t("title"),
    dirty: isAdmin && supported && (draft.dirty || draft.pendingRetry),
    canSave: draft.canSave,
    saving: draft.saving,
    save,
    discard,
  }, saveBarStore);

  return (
    <Card
      classes={styles}
      titleId="retention-card-title"
      title={t("title")}
      testId="retention-card"
      busy={retention.isFetching}
      headerElement="header"
      header={
        <div className={styles.headerActions}>
          {status && supported && <StateBadge status={status} />}
          {status && !retention.error && (
            <button type="button" className={styles.secondaryButton} onClick={() => void retention.refresh()} aria-busy={retention.isFetching} data-testid="retention-refresh">
              {t("refresh")}
            </button>
          )}
        </div>
      }
    >
      <p className={styles.description}>{t("description")}</p>
      <p className={styles.muted} data-testid="retention-schedule">
        {t("schedule")}
      </p>
      {!isAdmin && (
        <p className={styles.info} data-testid="retention-read-only">
          {t("readOnly")}
        </p>
      )}
      {retention.error && <ErrorSummary error={retention.error} onRefresh={() => void retention.refresh()} onDismiss={retention.dismissActionError} />}
      {retention.isLoading && !retention.error && (
        <p className={styles.muted} role="status">
          {t("loading")}
        </p>
      )}
      {status?.capability === "unsupported" && <Notice testId="retention-unsupported" title={t("unsupportedTitle")} body={t("unsupportedBody")} />}
      {status?.capability === "supported" && status.recordState === "malformed" && (
        <MalformedNotice status={status} isAdmin={isAdmin} format={format} save={retention.save} />
      )}
      {status && supported && <CardBody status={status} isAdmin={isAdmin} retention={retention} draft={draft} events={events} format={format} />}
    </Card>
  );
}

function Notice(props: { testId: string; title: string; body: string }) {
  return (
    <div className={styles.notice} data-testid={props.testId}>
      <p className={styles.errorTitle}>{props.title}</p>
      <p>{props.body}</p>
    </div>
  );
}

function StateBadge({ status }: { status: CompactionStatusBody }) {
  const t = useTranslations("compaction.state");
  const state = policyState(status);
  return (
    <span className={styles.badge} data-state={state} data-testid="retention-state">
      {t(state)}
    </span>
  );
}

type BodyProps = {
  status: CompactionStatusBody;
  isAdmin: boolean;
  retention: ReturnType<typeof useCompaction>;
  draft: ReturnType<typeof useCompactionDraft>;
  events: ReturnType<typeof useOperationEvents>;
  format: ReturnType<typeof useCompactionFormat>;
};

function CardBody({ status, isAdmin, retention, draft, events, format }: BodyProps) {
  const t = useTranslations("compaction");
  const active = status.activeOperation;
  const form = draft.draft;
  const cancel = () => active && void retention.cancel(active.id);
  const stateText = t(`state.${policyState(status)}`);
  return (
    <>
      {isAdmin && draft.conflict && form && (
        <ConflictNotice server={status.policy} mine={form} format={format} onUseServer={draft.adoptServerVersion} onKeepMine={draft.keepMine} />
      )}
      {isAdmin && form ? (
        <AgeControls
          draft={form}
          valid={draft.age !== null}
          analyzing={retention.busy === "analyze"}
          analyzeBlocked={active !== null && !status.betweenSlices}
          onValue={draft.setAgeValue}
          onUnit={draft.setAgeUnit}
          onAnalyze={() => draft.age && void retention.analyze(draft.age)}
        />
      ) : (
        <p data-testid="retention-age-readonly">
          <span className={styles.label}>{t("age.legend")}</span> {format.age(status.policy.age)}
        </p>
      )}
      <Estimate
        analysis={status.latestAnalysis}
        active={active}
        live={events.latest}
        draftAge={isAdmin ? draft.age : status.policy.age}
        format={format}
        canCancel={isAdmin}
        cancelling={retention.busy === "cancel"}
        onCancel={cancel}
      />
      {isAdmin && form ? (
        <AutomaticSwitch checked={form.enabled} stateText={draft.dirty ? t("automatic.unsaved") : stateText} onChange={draft.setEnabled} />
      ) : (
        <p data-testid="retention-automatic-readonly">
          <span className={styles.label}>{t("automatic.label")}</span> {stateText}
        </p>
      )}
      <BackupReview
        status={status}
        format={format}
        choiceProps={
          isAdmin && draft.needsChoice
            ? { choice: draft.choice, acknowledged: draft.acknowledged, onChoice: draft.setChoice, onAcknowledged: draft.setAcknowledged }
            : null
        }
      />
      <RunPanel
        status={status}
        live={events.latest}
        format={format}
        controls={
          isAdmin
            ? { starting: retention.busy === "run", cancelling: retention.busy === "cancel", onRun: (options) => void retention.run(status.policy.revision, options), onCancel: cancel }
            : null
        }
      />
    </>
  );
}
