// The verbs the Messages compaction routes call. The worker they talk to is
// the runtime's (built and started with it); no verb constructs or starts it.
import "server-only";
import type { OpenRuntime } from "@/server/runtime";
import type { AnalyzeBody, CancelBody, PutPolicyBody, RunBody } from "@/lib/compaction/api";
import { audited, type AuditActor } from "@/server/audit/record";
import { auditPreparationChoice, policyAuditDetail } from "./policy-audit";
import { savePolicy } from "./policy/policy-update";
import { readCompactionRecord } from "./policy/record";
import { readCompactionStatus, type CompactionStatus } from "./status";
import { describeWindow } from "./window-status";
import { refuseOutsideWindow } from "@/server/jobs/window-gate";
import { workerLeaseHeld } from "@/server/db/pg/worker-lease";

export async function getCompactionStatus(rt: OpenRuntime): Promise<CompactionStatus> {
  const nowMs = rt.clock.now();
  const status = { ...(await readCompactionStatus(rt.stores.compaction, nowMs)), maintenanceWindow: describeWindow(rt.maintenanceWindow, nowMs) };
  const waiting = (await rt.compaction.betweenSlices?.()) ?? null;
  if (waiting !== null && status.activeOperation?.id === waiting) return { ...status, betweenSlices: true };
  // On PostgreSQL the worker runs where the lease is held: with no holder, the recorded operation is frozen until a takeover.
  // A worker running here holds it: the holder's own status GETs skip that round trip (a scan of pg_locks) during its pass.
  if (status.activeOperation && rt.postgres && !rt.compaction.isRunning() && !(await workerLeaseHeld(rt.postgres))) return { ...status, waitingForWorker: true };
  return status;
}

/**
 * What a save that starts a cleanup pass (the initial pass, or one after a
 * backup preparation) does while the maintenance window is closed: "wait"
 * lets the pass wait for the window (the API's behaviour), "refuse" rolls
 * the save back with outside_maintenance_window, "run" runs the pass now
 * (the administrator confirmed).
 */
export type SaveOutsideWindow = "wait" | "refuse" | "run";

/** `actor` is the signed-in user's id; verbs called without one are the command line's. */
export async function putCompactionPolicy(
  rt: OpenRuntime,
  body: PutPolicyBody,
  actor: AuditActor = "cli",
  options: { outsideWindow?: SaveOutsideWindow } = {},
): Promise<CompactionStatus> {
  const outsideWindow = options.outsideWindow ?? "wait";
  let before = await readCompactionRecord(rt.stores.compaction);
  const { effects } = await audited(rt, { actor, kind: "policy.changed", ...policyAuditDetail({ before: () => before, body }) }, async () => {
    // Re-read inside the writer transaction: "before" is what this save replaced.
    before = await readCompactionRecord(rt.stores.compaction);
    const saved = await savePolicy(rt.stores.compaction, {
      draft: body.policy,
      expectedRevision: body.expectedRevision,
      preparation: body.preparation,
      nowMs: rt.clock.now(),
      newId: rt.ids,
    });
    const startsPass = saved.effects.startInitialCleanup || saved.effects.startPreparation !== null;
    // Inside the transaction: a refusal leaves the policy as it was.
    if (startsPass && outsideWindow === "refuse") refuseOutsideWindow({ window: rt.maintenanceWindow, nowMs: rt.clock.now(), confirmed: false });
    await auditPreparationChoice(rt, { actor, saved });
    return saved;
  });
  await rt.compaction.policySaved(effects, { outsideWindow: outsideWindow === "run" });
  return getCompactionStatus(rt);
}

export function analyzeCompaction(rt: OpenRuntime, body: AnalyzeBody): Promise<{ operationId: string }> {
  return rt.compaction.requestAnalysis(body.age);
}

export function runCompaction(rt: OpenRuntime, body: RunBody, actor: AuditActor = "cli"): Promise<{ operationId: string }> {
  return audited(rt, { actor, kind: "compaction.run", detail: ({ operationId }) => ({ operationId }), failureDetail: {} }, () =>
    rt.compaction.requestRun(body.expectedRevision, { outsideWindow: body.outsideWindow }),
  );
}

export async function cancelCompaction(rt: OpenRuntime, body: CancelBody, actor: AuditActor = "cli"): Promise<CompactionStatus> {
  await audited(rt, { actor, kind: "compaction.cancelled", detail: { operationId: body.operationId } }, () => rt.compaction.cancel(body.operationId));
  return getCompactionStatus(rt);
}
