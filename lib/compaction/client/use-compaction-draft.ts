"use client";
// The draft of the Messages compaction policy. It owns the form values, the
// inline backup choice and the conflict state; the status hook owns requests.
// - Server updates replace a clean draft, never a dirty one.
// - Saving sends a snapshot; edits made while it is in flight survive.
// - A draft the server would refuse without a backup choice (enabling, an
//   unapproved policy, a period whose cutoff can be later on some date: the
//   shared rule of lib/compaction/period-rule) asks for it at once; 400
//   backup_choice_required still asks for it if the server knew better.
// - 409 conflict keeps the draft and shows the server's policy beside it.
import { useCallback, useMemo, useState } from "react";
import type { AgeUnit, CompactionPolicy } from "@/lib/compaction/policy";
import { cutoffCanMoveLater } from "@/lib/compaction/period-rule";
import type { ActionResult } from "./use-compaction";
import type { CompactionStatusBody } from "@/lib/compaction/api";
import type { PutPolicyBody } from "@/lib/compaction/api";
import { buildPutBody, draftFromPolicy, parseDraftAge, sameDraft, type BackupChoice, type PolicyDraftForm } from "./draft-model";

type SaveFn = (body: PutPolicyBody) => Promise<ActionResult<CompactionStatusBody>>;

type DraftState = {
  base: CompactionPolicy | null;
  draft: PolicyDraftForm | null;
  choice: BackupChoice | null;
  acknowledged: boolean;
  /** The server asked for a backup choice this draft did not carry. */
  choiceRequired: boolean;
  conflict: boolean;
  saving: boolean;
};

const INITIAL: DraftState = { base: null, draft: null, choice: null, acknowledged: false, choiceRequired: false, conflict: false, saving: false };

function adoptServerPolicy(current: DraftState, serverPolicy: CompactionPolicy): DraftState {
  if (!current.base || !current.draft) return { ...current, base: serverPolicy, draft: draftFromPolicy(serverPolicy) };
  if (current.base.revision === serverPolicy.revision || current.conflict || current.saving) return current;
  if (!sameDraft(current.draft, draftFromPolicy(current.base))) return current;
  return { ...current, base: serverPolicy, draft: draftFromPolicy(serverPolicy) };
}

export function useCompactionDraft(options: {
  serverPolicy: CompactionPolicy | undefined;
  preparationFailed?: boolean;
  /** The saved policy is enabled AND approved (status `armed`); unknown counts as approved when enabled. */
  approved?: boolean;
}) {
  const { serverPolicy, preparationFailed = false, approved } = options;
  const [state, setState] = useState<DraftState>(INITIAL);

  // Adopt the server policy while the draft is clean (first load, another
  // tab's save). Done while rendering, when the server policy object changes.
  const [seenPolicy, setSeenPolicy] = useState<CompactionPolicy | undefined>(undefined);
  if (serverPolicy !== seenPolicy) {
    setSeenPolicy(serverPolicy);
    if (serverPolicy) setState((current) => adoptServerPolicy(current, serverPolicy));
  }

  const draft = state.draft;
  const base = state.base;
  const dirty = !!draft && !!base && !sameDraft(draft, draftFromPolicy(base));
  const age = draft ? parseDraftAge(draft) : null;
  const shortens = !!base && base.enabled && age !== null && cutoffCanMoveLater({ approved: base.age, next: age });
  const needsChoice =
    !!draft && draft.enabled && (!base?.enabled || approved === false || shortens || state.choiceRequired || preparationFailed);
  const choiceComplete = state.choice === "backup" || (state.choice === "skip" && state.acknowledged);
  // A failed backup is retried by saving the same policy again with a new choice.
  const pendingRetry = preparationFailed && !!draft?.enabled && state.choice !== null;
  const canSave = !!draft && !!base && age !== null && (dirty || (preparationFailed && draft.enabled)) && (!needsChoice || choiceComplete) && !state.saving;

  const update = useCallback((patch: Partial<PolicyDraftForm>) => {
    setState((current) => (current.draft ? { ...current, draft: { ...current.draft, ...patch } } : current));
  }, []);

  const setEnabled = useCallback((enabled: boolean) => update({ enabled }), [update]);
  const setAgeValue = useCallback((ageValue: string) => update({ ageValue }), [update]);
  const setAgeUnit = useCallback((ageUnit: AgeUnit) => update({ ageUnit }), [update]);
  const setChoice = useCallback((choice: BackupChoice) => setState((current) => ({ ...current, choice, acknowledged: choice === "skip" ? current.acknowledged : false })), []);
  const setAcknowledged = useCallback((acknowledged: boolean) => setState((current) => ({ ...current, acknowledged })), []);

  const discard = useCallback(() => {
    setState((current) => (current.base ? { ...current, draft: draftFromPolicy(current.base), choice: null, acknowledged: false, choiceRequired: false, conflict: false } : current));
  }, []);

  /** Conflict: take the server's policy and drop the local edits. */
  const adoptServerVersion = useCallback(() => {
    if (!serverPolicy) return;
    setState((current) => ({ ...current, base: serverPolicy, draft: draftFromPolicy(serverPolicy), conflict: false, choice: null, acknowledged: false, choiceRequired: false }));
  }, [serverPolicy]);

  /** Conflict: keep the local edits on top of the server's revision (the next save overwrites it). */
  const keepMine = useCallback(() => {
    if (!serverPolicy) return;
    setState((current) => ({ ...current, base: serverPolicy, conflict: false }));
  }, [serverPolicy]);

  const save = useCallback(
    async (send: SaveFn): Promise<boolean> => {
      if (!draft || !base || !age || !canSave) return false;
      const sent = draft;
      const body = buildPutBody({ draft: sent, age, expectedRevision: base.revision, choice: needsChoice ? state.choice : null });
      setState((current) => ({ ...current, saving: true }));
      const result = await send(body);
      setState((current) => {
        if (result.ok) {
          const policy = result.value.policy;
          const untouched = current.draft !== null && sameDraft(current.draft, sent);
          return {
            ...current,
            saving: false,
            base: policy,
            draft: untouched ? draftFromPolicy(policy) : current.draft,
            choice: null,
            acknowledged: false,
            choiceRequired: false,
            conflict: false,
          };
        }
        if (result.error.code === "backup_choice_required") return { ...current, saving: false, choiceRequired: true };
        if (result.error.code === "conflict") return { ...current, saving: false, conflict: true };
        return { ...current, saving: false };
      });
      return result.ok;
    },
    [draft, base, age, canSave, needsChoice, state.choice],
  );

  return useMemo(
    () => ({
      draft,
      base,
      age,
      dirty,
      pendingRetry,
      canSave,
      needsChoice,
      choice: state.choice,
      acknowledged: state.acknowledged,
      conflict: state.conflict,
      saving: state.saving,
      setEnabled,
      setAgeValue,
      setAgeUnit,
      setChoice,
      setAcknowledged,
      discard,
      adoptServerVersion,
      keepMine,
      save,
    }),
    [draft, base, age, dirty, pendingRetry, canSave, needsChoice, state.choice, state.acknowledged, state.conflict, state.saving, setEnabled, setAgeValue, setAgeUnit, setChoice, setAcknowledged, discard, adoptServerVersion, keepMine, save],
  );
}

export type CompactionDraft = ReturnType<typeof useCompactionDraft>;
