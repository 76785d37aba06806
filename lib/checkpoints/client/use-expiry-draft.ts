"use client";
// The thread expiry form's draft: the period as typed, the switch, the
// backup choice and whether the consequence confirmation is open. It follows
// the server's policy until the administrator edits it, and says when a
// save needs the backup or skip choice (the server's rule: first enable, a
// policy not armed, or a period that could expire a thread the approved one
// kept); a failed backup is retried by saving the same policy again.
import { useMemo, useState } from "react";
import { expiryAgeSchema, type ExpiryAge, type ExpiryAgeUnit, type ExpiryStatus } from "@/lib/checkpoints/maintenance-api";
import { cutoffCanMoveLater } from "@/lib/compaction/period-rule";

export type ExpiryDraft = { enabled: boolean; ageValue: string; ageUnit: ExpiryAgeUnit };

function fromStatus(status: ExpiryStatus): ExpiryDraft {
  return { enabled: status.policy.enabled, ageValue: String(status.policy.age.value), ageUnit: status.policy.age.unit };
}

export function useExpiryDraft(status: ExpiryStatus | undefined) {
  const [draft, setDraft] = useState<ExpiryDraft | null>(null);
  const [revision, setRevision] = useState<number | null>(null);
  const [choice, setChoice] = useState<"backup" | "skip" | null>(null);
  const [acknowledged, setAcknowledged] = useState(false);
  const [confirming, setConfirming] = useState(false);

  // A new server revision (this admin's save, or another's) resets the
  // form; adopted while rendering, when the revision changes.
  if (status && status.policy.revision !== revision) {
    setRevision(status.policy.revision);
    setDraft(fromStatus(status));
    setChoice(null);
    setAcknowledged(false);
    setConfirming(false);
  }

  return useMemo(() => {
    const form = draft ?? (status ? fromStatus(status) : null);
    const parsed = form ? expiryAgeSchema.safeParse({ value: Number(form.ageValue), unit: form.ageUnit }) : null;
    const age: ExpiryAge | null = parsed?.success && /^\d+$/.test(form!.ageValue) ? parsed.data : null;
    const dirty = !!status && !!form && (form.enabled !== status.policy.enabled || form.ageValue !== String(status.policy.age.value) || form.ageUnit !== status.policy.age.unit);
    const needsChoice =
      !!status && !!form && form.enabled && age !== null && (!status.armed || cutoffCanMoveLater({ approved: status.policy.age, next: age }));
    const choiceReady = !needsChoice || choice === "backup" || (choice === "skip" && acknowledged);
    // Enabled but not armed with no preparation in flight (a backup failed or was cancelled):
    // saving the same policy with a new choice prepares it again.
    const prep = status?.preparation.state;
    const retry = !!status && !!form && form.enabled && status.policy.enabled && !status.armed && prep !== "pending" && prep !== "running";
    return {
      draft: form,
      age,
      dirty,
      needsChoice,
      choice,
      acknowledged,
      confirming,
      retry,
      canSave: (dirty || retry) && age !== null && choiceReady,
      /** A save that can delete threads states what it deletes first. */
      deletes: !!form?.enabled && (needsChoice || !status?.policy.enabled),
      setEnabled: (enabled: boolean) => setDraft((d) => (d ? { ...d, enabled } : d)),
      setAgeValue: (ageValue: string) => setDraft((d) => (d ? { ...d, ageValue } : d)),
      setAgeUnit: (ageUnit: ExpiryAgeUnit) => setDraft((d) => (d ? { ...d, ageUnit } : d)),
      setChoice,
      setAcknowledged,
      setConfirming,
      reset: () => {
        if (status) setDraft(fromStatus(status));
        setChoice(null);
        setAcknowledged(false);
        setConfirming(false);
      },
    };
  }, [draft, status, choice, acknowledged, confirming]);
}
