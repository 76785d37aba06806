// What the audit trail keeps of a policy save: the chosen policy before and
// after (enabled, period, revision) and the backup/skip choice; nothing else
// of the settings record.
import "server-only";
import type { AuditDetail, AuditPolicyView } from "@/lib/audit/api";
import type { PutPolicyBody } from "@/lib/compaction/api";
import type { AuditOptions } from "@/server/audit/record";
import { writeAuditEntry } from "@/server/audit/record";
import type { Clock } from "@/server/clock";
import type { AuditStore } from "@/server/audit/store";
import type { SavePolicyResult } from "./policy/policy-update";
import type { CompactionRead } from "./policy/record";
import type { CompactionRecord } from "./policy/policy-schema";

function view(policy: CompactionRecord["policy"]): AuditPolicyView {
  return { enabled: policy.enabled, age: { value: policy.age.value, unit: policy.age.unit }, revision: policy.revision };
}

export function policyAuditDetail(options: {
  /** The record before the save (read again inside its transaction). */
  before: () => CompactionRead;
  body: PutPolicyBody;
}): Pick<AuditOptions<SavePolicyResult>, "detail" | "failureDetail"> {
  const beforeView = () => {
    const read = options.before();
    return read.state === "malformed" ? null : view(read.record.policy);
  };
  const { policy, expectedRevision } = options.body;
  return {
    detail: ({ record }) => ({ before: beforeView(), after: view(record.policy), revision: record.policy.revision }),
    failureDetail: { before: beforeView(), after: { enabled: policy.enabled, age: { ...policy.age }, revision: expectedRevision }, revision: expectedRevision },
  };
}

/** Appends the backup/skip choice when this save made one (inside the save's transaction). */
export async function auditPreparationChoice(
  target: { stores: { audit: AuditStore }; clock: Clock },
  options: { actor: string; saved: SavePolicyResult },
): Promise<void> {
  const { record, effects } = options.saved;
  const choice = record.runtime.preparation.choice;
  if (!choice || (!effects.startPreparation && !effects.startInitialCleanup)) return;
  const detail: AuditDetail = { choice, revision: record.policy.revision };
  if (effects.startPreparation) detail.operationId = effects.startPreparation;
  await writeAuditEntry(target.stores.audit, { atMs: target.clock.now(), actor: options.actor, kind: "preparation.chosen", detail });
}
