// The verbs the Messages compaction routes call. The worker they talk to is
// the runtime's (built and started with it); no verb constructs or starts it.
import "server-only";
import type { OpenRuntime } from "@/server/runtime";
import type { AnalyzeBody, CancelBody, PutPolicyBody, RunBody } from "@/lib/compaction/api";
import { savePolicy } from "./policy/policy-update";
import { readRetentionStatus, type RetentionStatus } from "./status";

export function getRetentionStatus(rt: OpenRuntime): RetentionStatus {
  const status = readRetentionStatus(rt.stores.compaction, rt.clock.now());
  const waiting = rt.compaction.betweenSlices?.() ?? null;
  return waiting !== null && status.activeOperation?.id === waiting ? { ...status, betweenSlices: true } : status;
}

export function putRetentionPolicy(rt: OpenRuntime, body: PutPolicyBody): RetentionStatus {
  const { effects } = savePolicy(rt.stores.compaction, {
    draft: body.policy,
    expectedRevision: body.expectedRevision,
    preparation: body.preparation,
    nowMs: rt.clock.now(),
    newId: rt.ids,
  });
  rt.compaction.policySaved(effects);
  return getRetentionStatus(rt);
}

export function analyzeRetention(rt: OpenRuntime, body: AnalyzeBody): { operationId: string } {
  return rt.compaction.requestAnalysis(body.age);
}

export function runRetention(rt: OpenRuntime, body: RunBody): { operationId: string } {
  return rt.compaction.requestRun(body.expectedRevision);
}

export function cancelRetention(rt: OpenRuntime, body: CancelBody): RetentionStatus {
  rt.compaction.cancel(body.operationId);
  return getRetentionStatus(rt);
}
