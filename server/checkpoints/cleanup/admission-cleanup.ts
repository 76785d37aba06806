// Bounded admission cleanup (CRC-10, CRC-13..15). When a run has won the
// thread lock and its request is validated (startRun reads the head and the
// resume target first, so a rejected request never reclaims anything), and
// before the run writes, the trailing duration-only leaf is reclaimed when
// provably redundant: its addressable parent holds the
// identical channel_versions map and it has no pending writes. Cost is flat
// in history length: two checkpoint lookups (head, parent) on the primary
// key, one pending-write probe, one guarded deletion. Blobs are untouched
// (SQLite keeps channel values inside each checkpoint row; the parent row
// still holds every version the leaf did). The leaf's run-history cache is
// handed to the admitted run, which carries it onto its own new leaf.
// Any failure is logged and leaves the thread as it was: admission goes on.
import type { Logger } from "@/server/log";
import type { CheckpointStore } from "../store";
import { bumpRetentionEpoch, type RetentionEpochs } from "./epoch";
import { judgeAdmission, type AdmissionFacts } from "./protected-set";
import { parseRunHistoryText, type RunHistory, type RunHistoryCache } from "./run-history";

export type AdmissionNoop =
  | "no_thread"
  | "head_not_duration_leaf"
  | "selected_by_run"
  | "missing_parent"
  | "versions_differ"
  | "pending_writes"
  | "unreadable_run_history"
  | "invalidation_failed"
  | "raced"
  | "failed";

export type AdmissionOutcome =
  | { action: "deleted"; leafId: string; parentId: string; runHistory: RunHistory | null }
  | { action: "noop"; reason: AdmissionNoop };

export type AdmissionOptions = {
  store: CheckpointStore;
  cache?: RunHistoryCache;
  log?: Logger;
  /** Bumped when the leaf is reclaimed, so concurrent reads retry. */
  epochs?: RetentionEpochs;
};

function judge(options: AdmissionOptions & { threadId: string; selectors: readonly string[] }): AdmissionOutcome {
  const { store, threadId, selectors, cache } = options;
  const row = store.admissionHead(threadId);
  if (!row) return { action: "noop", reason: "no_thread" };
  const head = { id: row.id, parentId: row.parentId, durationOnly: row.durationOnly, versions: row.versions };
  // Each lookup happens only while the protected set has not yet answered.
  const facts: AdmissionFacts = { head, selectors };
  let reason = judgeAdmission(facts);
  if (reason === "missing_parent" && head.parentId) {
    facts.parent = store.channelVersions(threadId, head.parentId);
    reason = judgeAdmission(facts);
  }
  if (reason === "pending_writes") {
    facts.headHasWrites = store.hasPendingWrites(threadId, head.id);
    reason = judgeAdmission(facts);
  }
  if (reason) return { action: "noop", reason };
  const runHistory = parseRunHistoryText(row.durations, row.messageIds, row.runOrder);
  if (row.durations !== null && !runHistory) return { action: "noop", reason: "unreadable_run_history" };
  try {
    cache?.invalidate(threadId);
  } catch {
    return { action: "noop", reason: "invalidation_failed" };
  }
  if (!store.deleteTrailingLeaf(threadId, head.id)) return { action: "noop", reason: "raced" };
  bumpRetentionEpoch(options.epochs, threadId);
  return { action: "deleted", leafId: head.id, parentId: head.parentId!, runHistory };
}

/** Runs the bounded cleanup for an admitted run; never throws. */
export function cleanupAtAdmission(options: AdmissionOptions & { threadId: string; selectors: readonly string[] }): AdmissionOutcome {
  try {
    const outcome = judge(options);
    if (outcome.action === "deleted") options.log?.info({ threadId: options.threadId, checkpointId: outcome.leafId }, "admission cleanup reclaimed duration leaf");
    return outcome;
  } catch (error) {
    options.log?.warn({ threadId: options.threadId, err: { name: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, "admission cleanup failed; run admitted");
    return { action: "noop", reason: "failed" };
  }
}

/** The RunDeps.admit hook: hands the reclaimed leaf's run-history cache to the admitted run. */
export function admissionHook(options: AdmissionOptions) {
  return async (request: { threadId: string; selectors: string[] }): Promise<RunHistory | null> => {
    const outcome = cleanupAtAdmission({ ...options, ...request });
    return outcome.action === "deleted" ? outcome.runHistory : null;
  };
}
