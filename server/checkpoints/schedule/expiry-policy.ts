// The PUT verb of thread expiry: a validated draft, compare-and-set on the
// revision, and compaction's preparation rules, because expiry deletes
// resume targets:
// - the first enablement (or re-enablement after a disable) and any change
//   that could expire a thread the approved period kept, on some date (a
//   shorter period: days and weeks are exact, months are calendar months),
//   need an explicit backup or skip choice and do not arm deletion until the
//   preparation is ready;
// - lengthening an approved period deletes strictly less: the approval
//   carries over;
// - disabling drops the approval and stops what runs;
// - a malformed record can always be replaced (expectedRevision = its
//   stored revision): disable is always available.
import "server-only";
import type { ExpiryPolicyDraft, ExpiryRecord } from "@/lib/checkpoints/maintenance-api";
import { cutoffCanMoveLater } from "@/lib/compaction/period-rule";
import { AppError } from "@/server/errors";
import type { IdGenerator } from "@/server/ids";
import { formatUtc } from "@/lib/time/rfc3339";
import { defaultExpiryRecord, editRecord } from "./records";
import type { CheckpointScheduleStore } from "./store";

export type ExpirySaveEffects = {
  /** A backup preparation to run (its operation id). */
  startPreparation: string | null;
  /** Armed by this save (a skip, or a period change the approval covers while a pass waited): start a pass. */
  startPass: boolean;
  /** Operations the change invalidated (a pass, a preparation); they stop at their next batch. */
  stopOperations: string[];
};

export function expiryArmed(record: ExpiryRecord): boolean {
  const { policy, runtime } = record;
  return policy.enabled && runtime.approvedRevision === policy.revision && runtime.preparation.state === "ready";
}

/** True when the draft could expire a thread the approved policy kept, on any date. */
export function expiryNeedsPreparation(options: { previous: ExpiryRecord; draft: ExpiryPolicyDraft }): boolean {
  const { previous, draft } = options;
  if (!draft.enabled) return false;
  if (!expiryArmed(previous)) return true;
  return cutoffCanMoveLater({ approved: previous.policy.age, next: draft.age });
}

export async function saveExpiryPolicy(
  store: CheckpointScheduleStore,
  options: { draft: ExpiryPolicyDraft; expectedRevision: number; preparation?: "backup" | "skip"; nowMs: number; newId: IdGenerator },
): Promise<{ record: ExpiryRecord; before: ExpiryRecord["policy"] | null; effects: ExpirySaveEffects }> {
  const { draft, expectedRevision, preparation, nowMs, newId } = options;
  const effects: ExpirySaveEffects = { startPreparation: null, startPass: false, stopOperations: [] };
  let before: ExpiryRecord["policy"] | null = null;
  const apply = (current: ExpiryRecord): ExpiryRecord => {
    if (current.policy.revision !== expectedRevision) {
      throw new AppError("conflict", "The thread expiry policy changed since it was read; reload and try again.", { currentRevision: current.policy.revision });
    }
    const next = structuredClone(current);
    const changed = current.policy.enabled !== draft.enabled || current.policy.age.value !== draft.age.value || current.policy.age.unit !== draft.age.unit;
    const revision = changed ? current.policy.revision + 1 : current.policy.revision;
    const prepare = expiryNeedsPreparation({ previous: current, draft });
    const wasArmed = expiryArmed(current);
    next.policy = { enabled: draft.enabled, age: { ...draft.age }, revision };
    const active = current.runtime.activeOperation;
    const pass = active?.kind === "thread_expiry" ? [active.id] : [];
    const prep = current.runtime.preparation;
    const prepInFlight = prep.operationId !== null && (prep.state === "pending" || prep.state === "running") ? [prep.operationId] : [];

    if (!draft.enabled) {
      next.runtime.approvedRevision = null;
      next.runtime.preparation = { state: "none", choice: null, revision: null, operationId: null, receipt: null, errorCode: null };
      next.runtime.nextDueAt = null;
      if (changed) effects.stopOperations.push(...pass, ...prepInFlight);
      return next;
    }
    if (!prepare) {
      // Unchanged, or a longer period under a valid approval: it carries over.
      if (wasArmed) next.runtime.approvedRevision = revision;
      next.runtime.preparation = { ...prep, revision };
      if (changed && pass.length > 0) {
        // A pass of the old revision would stop at its next thread as
        // policy_changed: end it now and start one under the new cutoff.
        effects.stopOperations.push(...pass);
        effects.startPass = wasArmed;
      }
      return next;
    }
    if (!preparation) throw new AppError("backup_choice_required", "Choose to create a backup or to skip it before thread expiry deletes threads.");
    effects.stopOperations.push(...pass, ...prepInFlight);
    next.runtime.approvedRevision = null;
    if (preparation === "skip") {
      // Approval is recorded before any deletion, so a restart cannot invent it.
      next.runtime.preparation = { state: "ready", choice: "skip", revision, operationId: null, receipt: { skippedAt: formatUtc(nowMs) }, errorCode: null };
      next.runtime.approvedRevision = revision;
      effects.startPass = true;
    } else {
      const operationId = newId();
      next.runtime.preparation = { state: "pending", choice: "backup", revision, operationId, receipt: null, errorCode: null };
      effects.startPreparation = operationId;
    }
    return next;
  };
  const record = await editRecord(
    store,
    "thread_expiry",
    nowMs,
    (current) => {
      before = structuredClone(current.policy);
      const next = apply(current);
      if (effects.stopOperations.includes(current.runtime.activeOperation?.id ?? "")) next.runtime.activeOperation = null;
      return { next, result: next };
    },
    (storedRevision) => {
      // A malformed record is replaced from defaults (disabled, unapproved):
      // enabling the replacement still needs its backup choice.
      if (storedRevision !== expectedRevision) throw new AppError("conflict", "The thread expiry policy changed since it was read; reload and try again.");
      const base = defaultExpiryRecord();
      base.policy.revision = storedRevision;
      const next = apply(base);
      if (next.policy.revision === storedRevision) next.policy.revision += 1;
      if (next.runtime.preparation.revision !== null) next.runtime.preparation.revision = next.policy.revision;
      if (next.runtime.approvedRevision !== null) next.runtime.approvedRevision = next.policy.revision;
      return { next, result: next };
    },
  );
  return { record: record!, before, effects };
}
