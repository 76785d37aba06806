// Pure helpers of the Messages compaction draft: what the form holds, when it
// differs from the saved policy, and the PUT body it turns into.
import { ageSchema, type AgeUnit, type CompactionAge, type CompactionPolicy } from "@/lib/compaction/policy";
import type { PutPolicyBody } from "@/lib/compaction/api";

/** The number field stays text while typing, so "" or "1e" can be shown and rejected. */
export type PolicyDraftForm = { enabled: boolean; ageValue: string; ageUnit: AgeUnit };

export type BackupChoice = "backup" | "skip";

export function draftFromPolicy(policy: CompactionPolicy): PolicyDraftForm {
  return { enabled: policy.enabled, ageValue: String(policy.age.value), ageUnit: policy.age.unit };
}

export function sameDraft(a: PolicyDraftForm, b: PolicyDraftForm): boolean {
  return a.enabled === b.enabled && a.ageValue.trim() === b.ageValue.trim() && a.ageUnit === b.ageUnit;
}

/** The validated age of the draft, or null when the number is out of range or not an integer. */
export function parseDraftAge(draft: PolicyDraftForm): CompactionAge | null {
  const text = draft.ageValue.trim();
  if (!/^\d{1,4}$/.test(text)) return null;
  const parsed = ageSchema.safeParse({ value: Number(text), unit: draft.ageUnit });
  return parsed.success ? parsed.data : null;
}

/** Fingerprint the server stamps on an analysis ("weeks:2"); a different one makes the estimate stale. */
export function fingerprintOf(age: CompactionAge): string {
  return `${age.unit}:${age.value}`;
}

export function buildPutBody(options: {
  draft: PolicyDraftForm;
  age: CompactionAge;
  expectedRevision: number;
  choice: BackupChoice | null;
}): PutPolicyBody {
  const { draft, age, expectedRevision, choice } = options;
  const body: PutPolicyBody = { policy: { enabled: draft.enabled, age }, expectedRevision };
  if (draft.enabled && choice) body.preparation = choice;
  return body;
}
