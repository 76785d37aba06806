// Bounded admission cleanup (CRC-10, CRC-13..15). When a run has won the
// thread lock and its request is validated (startRun reads the head and the
// resume target first, so a rejected request never reclaims anything), and
// before the run writes, the trailing duration-only leaf is reclaimed when
// provably redundant: its addressable parent holds the identical
// channel_versions map and it has no pending writes. Cost is flat in history
// length, in statements and in bytes. A leaf our runs recorded takes two
// statements: the head lookup (the leaf's key columns and its
// checkpoint_runs row: the parent it was written on and the channel_versions
// digests of both as written) and one guarded deletion whose guards are the
// parent lookup and the pending-write probe (still the newest, no writes,
// parent there; on PostgreSQL also the parent's versions), so nothing is
// looked up twice; only a refused deletion probes the parent and the writes
// again, to name the reason. No metadata or body of a checkpoint is read.
// Only a leaf written before checkpoint_runs existed is judged from its
// metadata (its stamped digest and its parent's, then the write probe,
// before the deletion), and its run-history maps are handed to the admitted
// run, which records them as rows. Blobs are untouched (SQLite keeps channel
// values inside each checkpoint row; on PostgreSQL the deletion checks that
// the parent names every version the leaf did). Any failure is logged and
// leaves the thread as it was: admission goes on.
import type { Logger } from "@/server/log";
import type { CheckpointStore } from "../store";
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
};

async function judge(options: AdmissionOptions & { threadId: string; selectors: readonly string[] }): Promise<AdmissionOutcome> {
  const { store, threadId, selectors, cache } = options;
  const row = await store.admissionHead(threadId);
  if (!row) return { action: "noop", reason: "no_thread" };
  const { recorded } = row;
  const digest = (value: string | null | undefined) => (value ? `digest:${value}` : null);
  const head = { id: row.id, parentId: row.parentId, durationOnly: row.durationOnly, versions: recorded ? digest(recorded.leafDigest) : row.versions };
  // Each lookup happens only while the protected set has not yet answered. A
  // recorded leaf's parent and writes are the guarded deletion's to check:
  // its recorded parent digest stands in for the parent, and no writes are
  // assumed (a deletion those guards refuse is explained below).
  const facts: AdmissionFacts = { head, selectors };
  let reason = judgeAdmission(facts);
  if (reason === "missing_parent" && head.parentId) {
    // The recorded digest is the parent's only while the leaf still hangs off the parent it was written on.
    facts.parent = recorded ? { versions: recorded.parentId === head.parentId ? digest(recorded.parentDigest) : null } : await store.channelVersions(threadId, head.parentId);
    reason = judgeAdmission(facts);
    // A missing parent answers before differing versions, as if it had been looked up first.
    if (recorded && reason === "versions_differ" && !(await store.checkpointExists(threadId, head.parentId))) reason = "missing_parent";
  }
  if (reason === "pending_writes") {
    facts.headHasWrites = recorded ? false : await store.hasPendingWrites(threadId, head.id);
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
  // The deletion bumps the thread's retention epoch, so concurrent reads retry.
  if (!(await store.deleteTrailingLeaf(threadId, head.id))) return { action: "noop", reason: await refusal(store, threadId, head) };
  return { action: "deleted", leafId: head.id, parentId: head.parentId!, runHistory };
}

/** Why the guarded deletion kept the leaf: its parent went, it got writes, or something else changed meanwhile. */
async function refusal(store: CheckpointStore, threadId: string, head: { id: string; parentId: string | null }): Promise<AdmissionNoop> {
  if (!head.parentId || !(await store.checkpointExists(threadId, head.parentId))) return "missing_parent";
  if (await store.hasPendingWrites(threadId, head.id)) return "pending_writes";
  return "raced";
}

/** Runs the bounded cleanup for an admitted run; never throws. */
export async function cleanupAtAdmission(options: AdmissionOptions & { threadId: string; selectors: readonly string[] }): Promise<AdmissionOutcome> {
  try {
    const outcome = await judge(options);
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
    const outcome = await cleanupAtAdmission({ ...options, ...request });
    return outcome.action === "deleted" ? outcome.runHistory : null;
  };
}
