"use client";
// Messages compaction (Data & Logs > Database). Control order, as the spec
// lists it: description; age controls + Analyze savings; estimate; the
// Automatic compaction switch; backup review; last/next run + Compact
// messages now. Saving goes through the page-level save bar (contributor
// system:tool-payload-retention); there is no Save button in the card.
import { useTranslations } from "next-intl";
import { useCallback, useEffect, useRef, useState } from "react";
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
import { RemovalConfirm, useRemovalConfirm, type RemovalKind } from "./removal-confirm";
import { RunPanel } from "./run-panel";
import { policyState } from "./status-state";
import { useCompactionFormat } from "./use-compaction-format";
import styles from "./compaction-card.module.css";

export const SAVE_CONTRIBUTOR_ID = "system:tool-payload-retention";
/** Where the save bar sits in the document: right after the controls that change the policy. */
export const SAVE_BAR_SLOT_ID = "retention-save-bar-slot";
const SWITCH_ID = "retention-automatic-switch";

/**
 * The control that made the draft dirty (the first one changed since it was
 * clean: the switch, the age, the unit), for focus after Save or Discard;
 * the backup choice that follows it is part of the same change.
 */
function useChangedControl() {
  const last = useRef<HTMLElement | null>(null);
  const record = useCallback((event: { target: EventTarget }) => {
    const el = event.target instanceof HTMLElement ? event.target : null;
    if (el?.matches("input, select, [role=switch]") && !last.current) last.current = el;
  }, []);
  // Focus moves after the commit that follows Save or Discard, when a control
  // the change removed (the backup choice) is gone and the fallback applies.
  const [request, setRequest] = useState(0);
  useEffect(() => {
    if (request === 0) return;
    const el = last.current;
    const usable = el && el.isConnected && !(el as HTMLInputElement).disabled;
    (usable ? el : document.getElementById(SWITCH_ID))?.focus();
    last.current = null;
  }, [request]);
  const restoreFocus = useCallback(() => setRequest((n) => n + 1), []);
  return { record, restoreFocus };
}

/** isAdmin comes from the session on the server, like every Database card; the API still checks each mutation. */
export function CompactionCard({ isAdmin, saveBarStore }: { isAdmin: boolean; saveBarStore?: SaveBarStore }) {
  const t = useTranslations("compaction.card");
  const format = useCompactionFormat();
  const compaction = useCompaction();
  const { status } = compaction;
  const supported = status?.capability === "supported" && status.recordState !== "malformed";
  const events = useOperationEvents({ enabled: !!status && status.capability === "supported" });
  const draft = useCompactionDraft({
    serverPolicy: supported ? status?.policy : undefined,
    preparationFailed: status?.preparation.state === "failed",
    approved: supported ? status?.armed : undefined,
  });
  const { save: saveDraft, discard } = draft;
  const confirmation = useRemovalConfirm({ status, analyze: compaction.analyze });
  const { request } = confirmation;
  const changed = useChangedControl();
  // A save that removes data (turning on, again, or a period whose cutoff
  // can move later) asks first: the save bar's Save opens the confirmation.
  const removal = removalKind(draft, status);
  const save = useCallback(async () => {
    if (removal && draft.age) {
      const confirmed = await request({ kind: removal, age: draft.age, choice: draft.choice });
      if (!confirmed) return "cancelled" as const;
    }
    return saveDraft(compaction.save);
  }, [removal, draft.age, draft.choice, request, saveDraft, compaction.save]);

  useSaveContributor(
    {
      id: SAVE_CONTRIBUTOR_ID,
      label: t("title"),
      dirty: isAdmin && supported && (draft.dirty || draft.pendingRetry),
      canSave: draft.canSave,
      saving: draft.saving,
      save,
      discard,
      slotId: SAVE_BAR_SLOT_ID,
      restoreFocus: changed.restoreFocus,
    },
    saveBarStore,
  );

  return (
    <Card
      classes={styles}
      titleId="retention-card-title"
      title={t("title")}
      testId="retention-card"
      busy={compaction.isFetching}
      headerElement="header"
      header={
        <div className={styles.headerActions}>
          {status && supported && <StateBadge status={status} />}
          {status && !compaction.error && (
            <button type="button" className={styles.secondaryButton} onClick={() => void compaction.refresh()} aria-busy={compaction.isFetching} data-testid="retention-refresh">
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
      {compaction.error && <ErrorSummary error={compaction.error} onRefresh={() => void compaction.refresh()} onDismiss={compaction.dismissActionError} />}
      {compaction.isLoading && !compaction.error && (
        <p className={styles.muted} role="status">
          {t("loading")}
        </p>
      )}
      {status?.capability === "unsupported" && <Notice testId="retention-unsupported" title={t("unsupportedTitle")} body={t("unsupportedBody")} />}
      {status?.capability === "supported" && status.recordState === "malformed" && (
        <MalformedNotice status={status} isAdmin={isAdmin} format={format} save={compaction.save} />
      )}
      {status && supported && (
        <div className={styles.body} onChangeCapture={changed.record} onClickCapture={changed.record}>
          <CardBody status={status} isAdmin={isAdmin} compaction={compaction} draft={draft} events={events} format={format} requestRemoval={request} />
        </div>
      )}
      {status && supported && isAdmin && (
        <RemovalConfirm pending={confirmation.pending} status={status} live={events.latest} format={format} onConfirm={confirmation.confirm} onCancel={confirmation.cancel} />
      )}
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

/** Which data-removing change a save is, or null when it removes nothing (off, a longer period, an unchanged approval). */
function removalKind(draft: ReturnType<typeof useCompactionDraft>, status: CompactionStatusBody | undefined): RemovalKind | null {
  if (!draft.draft?.enabled || !draft.needsChoice || !draft.base) return null;
  if (draft.base.enabled) return "shorten";
  const before = !!status?.preparation.receipt || !!status?.latestRun;
  return before ? "reenable" : "enable";
}

type BodyProps = {
  status: CompactionStatusBody;
  isAdmin: boolean;
  compaction: ReturnType<typeof useCompaction>;
  draft: ReturnType<typeof useCompactionDraft>;
  events: ReturnType<typeof useOperationEvents>;
  format: ReturnType<typeof useCompactionFormat>;
  requestRemoval: ReturnType<typeof useRemovalConfirm>["request"];
};

function CardBody({ status, isAdmin, compaction, draft, events, format, requestRemoval }: BodyProps) {
  const t = useTranslations("compaction");
  const active = status.activeOperation;
  const form = draft.draft;
  const cancel = () => active && void compaction.cancel(active.id);
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
          analyzing={compaction.busy === "analyze"}
          analyzeBlocked={active !== null && !status.betweenSlices}
          onValue={draft.setAgeValue}
          onUnit={draft.setAgeUnit}
          onAnalyze={() => draft.age && void compaction.analyze(draft.age)}
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
        cancelling={compaction.busy === "cancel"}
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
      {isAdmin && <div id={SAVE_BAR_SLOT_ID} data-testid="retention-save-bar-slot" />}
      <RunPanel
        status={status}
        live={events.latest}
        format={format}
        controls={
          isAdmin
            ? {
                starting: compaction.busy === "run",
                cancelling: compaction.busy === "cancel",
                onRun: () => {
                  const outsideWindow = !!status.maintenanceWindow && !status.maintenanceWindow.open;
                  void requestRemoval({ kind: "run", age: status.policy.age, choice: null }).then((confirmed) => {
                    if (confirmed) void compaction.run(status.policy.revision, outsideWindow ? { outsideWindow: true } : undefined);
                  });
                },
                onCancel: cancel,
              }
            : null
        }
      />
    </>
  );
}
