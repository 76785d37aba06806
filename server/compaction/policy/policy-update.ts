// The PUT verb of Messages compaction: validated draft, compare-and-swap on
// the revision, and the preparation rules of the spec:
// - first enablement (or re-enablement after a full disable) and any
//   shortening of the period store a pending revision with an explicit
//   backup/skip choice and do not arm deletion;
// - a pending change pauses cleanup even when the previous policy was enabled;
// - lengthening the period while approved deletes strictly less, so the
//   approval carries over to the new revision;
// - disabling invalidates the approval and any preparation in flight;
// - a malformed record can be replaced (expectedRevision = its readable
//   revision, 0 when none): "Disable is always available".
import "server-only";
import { AppError } from "@/server/errors";
import { formatUtc } from "@/lib/time/rfc3339";
import type { IdGenerator } from "@/server/ids";
import { cutoffCanMoveLater } from "@/lib/compaction/period-rule";
import { updateCompactionRecord } from "./record";
import type { PolicyDraft, CompactionRecord } from "./policy-schema";
import type { CompactionStore } from "../store";

export type SavePolicyOptions = {
  draft: PolicyDraft;
  expectedRevision: number;
  preparation?: "backup" | "skip";
  nowMs: number;
  newId: IdGenerator;
};

export type SavePolicyEffects = {
  /** A backup preparation the worker must run. */
  startPreparation: string | null;
  /** Skip was chosen: cleanup is armed and the initial pass should start. */
  startInitialCleanup: boolean;
  /** Operations the change invalidated (a cleanup pass, a preparation); the worker stops them. */
  stopOperations: string[];
};

export type SavePolicyResult = { record: CompactionRecord; effects: SavePolicyEffects };

/**
 * True when the new policy could delete anything the approved one would have
 * kept, on any date (not just the day of saving): a month and four weeks
 * agree on 1 March and not on 31 March.
 */
export function needsPreparation(options: { previous: CompactionRecord; draft: PolicyDraft }): boolean {
  const { previous, draft } = options;
  if (!draft.enabled) return false;
  const approved =
    previous.policy.enabled &&
    previous.runtime.approvedRevision === previous.policy.revision &&
    previous.runtime.preparation.state === "ready";
  if (!approved) return true;
  return cutoffCanMoveLater({ approved: previous.policy.age, next: draft.age });
}

export async function savePolicy(store: CompactionStore, options: SavePolicyOptions): Promise<SavePolicyResult> {
  const { draft, expectedRevision, preparation, nowMs, newId } = options;
  const effects: SavePolicyEffects = { startPreparation: null, startInitialCleanup: false, stopOperations: [] };
  const { record } = await updateCompactionRecord(store, {
    expectedRevision,
    nowMs,
    // A malformed record is replaced from defaults (disabled, unapproved):
    // enabling the replacement still needs its backup choice, so nothing is
    // deleted before a valid, prepared policy exists.
    onMalformed: "reset",
    mutate(current) {
      const next = structuredClone(current);
      const wasApprovedFor = current.runtime.approvedRevision === current.policy.revision ? current.policy.revision : null;
      const prepare = needsPreparation({ previous: current, draft });
      const choiceChanged =
        current.policy.enabled !== draft.enabled ||
        current.policy.age.value !== draft.age.value ||
        current.policy.age.unit !== draft.age.unit;
      next.policy = { enabled: draft.enabled, age: { ...draft.age }, revision: current.policy.revision };
      // The revision the record will carry after write(): +1 on a change.
      const nextRevision = choiceChanged ? current.policy.revision + 1 : current.policy.revision;
      const active = current.runtime.activeOperation;
      // Cleanup passes the change invalidates: the one in the slot and one
      // that stepped aside for a manual job.
      const passes = [active, current.runtime.waitingCleanup ?? null].flatMap((op) => (op?.kind === "cleanup" ? [op.id] : []));
      const prep = current.runtime.preparation;
      const prepInFlight = prep.operationId !== null && (prep.state === "pending" || prep.state === "running") ? prep.operationId : null;

      if (!draft.enabled) {
        next.runtime.approvedRevision = null;
        next.runtime.preparation = { state: "none", choice: null, revision: null, operationId: null, receipt: null, errorCode: null };
        next.runtime.nextDueAt = null;
        effects.stopOperations.push(...passes);
        // A backup still running would hold the maintenance guard for nothing.
        if (prepInFlight) effects.stopOperations.push(prepInFlight);
        return next;
      }

      if (!prepare) {
        // Lengthening an approved period (or saving it unchanged): approval carries over.
        if (wasApprovedFor !== null) next.runtime.approvedRevision = nextRevision;
        next.runtime.preparation = { ...current.runtime.preparation, revision: nextRevision };
        if (choiceChanged && passes.length > 0) {
          // A pass of the old revision (running or parked between slices)
          // would only end at its next batch as policy_changed, holding the
          // slot until then: stop it now and start a fresh pass under the
          // new revision and its own cutoff.
          effects.stopOperations.push(...passes);
          effects.startInitialCleanup = wasApprovedFor !== null;
        }
        return next;
      }

      if (!preparation) {
        throw new AppError("backup_choice_required", "Choose to create a backup or to skip it before enabling compaction.");
      }
      effects.stopOperations.push(...passes);
      if (prepInFlight) effects.stopOperations.push(prepInFlight);
      next.runtime.approvedRevision = null;
      next.runtime.cursor = null;
      if (preparation === "skip") {
        // Approval is recorded before any deletion, so a restart cannot invent it.
        next.runtime.preparation = {
          state: "ready",
          choice: "skip",
          revision: nextRevision,
          operationId: null,
          receipt: { skippedAt: formatUtc(nowMs) },
          errorCode: null,
        };
        next.runtime.approvedRevision = nextRevision;
        effects.startInitialCleanup = true;
      } else {
        const operationId = newId();
        next.runtime.preparation = {
          state: "pending",
          choice: "backup",
          revision: nextRevision,
          operationId,
          receipt: null,
          errorCode: null,
        };
        effects.startPreparation = operationId;
      }
      return next;
    },
  });
  return { record, effects };
}
