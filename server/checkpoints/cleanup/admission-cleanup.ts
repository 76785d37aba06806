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
import { bumpRetentionEpoch, type RetentionEpochs } from "./epoch";
import { judgeAdmission, type AdmissionFacts } from "./protected-set";
import { parseRunHistoryText, type RunHistory, type RunHistoryCache } from "./run-history";
import { DURATION_ONLY_SQL, ROOT_NS, type Sqlite } from "./thread-rows";

// One parse per blob: a malformed checkpoint makes json_extract throw, which
// the caller turns into a logged no-op (no separate json_valid pass).
const VERSIONS_SQL = "CASE WHEN c.type = 'json' THEN json_extract(CAST(c.checkpoint AS TEXT), '$.channel_versions') END";

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
  sqlite: Sqlite;
  cache?: RunHistoryCache;
  log?: Logger;
  /** Bumped when the leaf is reclaimed, so concurrent reads retry. */
  epochs?: RetentionEpochs;
};

type HeadRow = { id: string; parentId: string | null; durationOnly: number; versions: string | null; durations: string | null; messageIds: string | null };

const HEAD_SQL = `SELECT c.checkpoint_id AS id, c.parent_checkpoint_id AS parentId, ${DURATION_ONLY_SQL} AS durationOnly, ${VERSIONS_SQL} AS versions,
  CASE WHEN json_valid(CAST(c.metadata AS TEXT)) THEN json_extract(CAST(c.metadata AS TEXT), '$.run_durations') END AS durations,
  CASE WHEN json_valid(CAST(c.metadata AS TEXT)) THEN json_extract(CAST(c.metadata AS TEXT), '$.run_message_ids') END AS messageIds
  FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id DESC LIMIT 1`;
const PARENT_SQL = `SELECT ${VERSIONS_SQL} AS versions FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id = ?`;
const PROBE_SQL = "SELECT EXISTS (SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?) AS busy";
// The guards repeat the proof inside the deletion: still no writes, still the newest.
const DELETE_SQL = `DELETE FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @leaf
  AND NOT EXISTS (SELECT 1 FROM writes WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @leaf)
  AND NOT EXISTS (SELECT 1 FROM checkpoints k WHERE k.thread_id = @thread AND k.checkpoint_ns = @ns AND k.checkpoint_id > @leaf)`;

function judge(options: AdmissionOptions & { threadId: string; selectors: readonly string[] }): AdmissionOutcome {
  const { sqlite, threadId, selectors, cache } = options;
  const row = sqlite.prepare(HEAD_SQL).get(threadId, ROOT_NS) as HeadRow | undefined;
  if (!row) return { action: "noop", reason: "no_thread" };
  const head = { id: row.id, parentId: row.parentId, durationOnly: row.durationOnly === 1, versions: row.versions };
  // Each lookup happens only while the protected set has not yet answered.
  const facts: AdmissionFacts = { head, selectors };
  let reason = judgeAdmission(facts);
  if (reason === "missing_parent" && head.parentId) {
    facts.parent = sqlite.prepare(PARENT_SQL).get(threadId, ROOT_NS, head.parentId) as { versions: string | null } | undefined;
    reason = judgeAdmission(facts);
  }
  if (reason === "pending_writes") {
    facts.headHasWrites = (sqlite.prepare(PROBE_SQL).get(threadId, ROOT_NS, head.id) as { busy: number }).busy === 1;
    reason = judgeAdmission(facts);
  }
  if (reason) return { action: "noop", reason };
  const runHistory = parseRunHistoryText(row.durations, row.messageIds);
  if (row.durations !== null && !runHistory) return { action: "noop", reason: "unreadable_run_history" };
  try {
    cache?.invalidate(threadId);
  } catch {
    return { action: "noop", reason: "invalidation_failed" };
  }
  const { changes } = sqlite.prepare(DELETE_SQL).run({ thread: threadId, ns: ROOT_NS, leaf: head.id });
  if (changes !== 1) return { action: "noop", reason: "raced" };
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
