// Agent runs on a thread, under the per-thread lock: gate, rollback capture,
// optional resume (full: fork from the checkpoint; delta: linearize onto the
// head, never fork), the scripted graph, then the duration-only checkpoint,
// and the run's row in checkpoint_runs (its history and the handle it
// hands out, which retention protects; handles.ts).
import { HumanMessage } from "@langchain/core/messages";
import type { Clock } from "@/server/clock";
import { AppError, isAppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { CheckpointAccessor } from "./accessor";
import { SCRIPT_KEY, type AgentScript } from "./agent";
import { isDurationOnly, persistRunDuration, readCumulative, runOrderOf, type PersistedDuration } from "./durations";
import { DEFAULT_HANDLE_TTL_DAYS, expiredHandle, type HandlePolicy } from "./handles";
import type { CheckpointStore, RunStatus } from "./store";
import { captureRollbackPoint, restoreRollbackPoint } from "./rollback";
import { settleWrites } from "./stamping-saver";
import { withThreadLock, type ThreadLocks } from "./thread-lock";

export type RunDeps = {
  accessor: CheckpointAccessor;
  clock: Clock;
  newId: () => string;
  locks: ThreadLocks;
  /** Tool output bytes per run (0: no tool call). */
  toolPayloadBytes?: number;
  log?: Logger;
  /**
   * Retention admission hook: runs under the thread lock once the request is
   * validated, before the run writes anything, and never throws. When it
   * reclaimed the trailing duration leaf it hands over that leaf's
   * run-history cache.
   */
  admit?: (request: { threadId: string; selectors: string[] }) => Promise<AdmittedRunHistory | null>;
  /**
   * Where runs and the handles they hand out are recorded (checkpoint_runs).
   * The thread service always passes it; without it nothing is recorded
   * (accessor-only tests on savers without our tables).
   */
  store?: CheckpointStore;
  /** CHECKPOINT_HANDLE_TTL_DAYS (default 30; 0: never expire). */
  handleTtlDays?: number;
  /**
   * Thread expiry: the thread_expired error (410) when the thread has been
   * expired, else null. Asked under the thread lock, so a run that waited
   * for the lock while expiry deleted the thread never writes into it.
   */
  expired?: (threadId: string) => Promise<AppError | null>;
};

export type AdmittedRunHistory = { run_durations: Record<string, number>; run_message_ids: Record<string, string[]>; run_order?: string[] };

export type RunRequest = {
  threadId: string;
  content: string;
  /** Resume from this checkpoint instead of the head. */
  checkpointId?: string;
  signal?: AbortSignal;
  /** Restore the captured pre-run state when the run is cancelled. */
  rollbackOnCancel?: boolean;
  beforeNode?: AgentScript["beforeNode"];
  /**
   * Resolves content and resume checkpoint inside the thread lock (regenerate:
   * the replay base must not move between lookup and run).
   */
  prepare?: () => Promise<{ content: string; checkpointId: string }>;
};

export type { RunStatus };
export type RunResult = { runId: string; status: RunStatus; checkpointId: string | null };

/**
 * Delta state for a fork is not materializable (a shared parent also carries
 * the abandoned sibling's writes), so an older checkpoint is materialized and
 * written onto the current head instead. Unreadable targets fail closed.
 */
export async function linearizeResume(accessor: CheckpointAccessor, threadId: string, checkpointId: string, missing?: () => AppError): Promise<string> {
  const target = await accessor.getState(threadId, checkpointId);
  if (!target) throw missing?.() ?? new AppError("not_found", `Checkpoint ${checkpointId} is not part of thread ${threadId}`);
  return accessor.replace(threadId, target.values);
}

/** The retention policy for handles at this moment. */
export function handlePolicy(deps: Pick<RunDeps, "clock" | "handleTtlDays">): HandlePolicy {
  return { ttlDays: deps.handleTtlDays ?? DEFAULT_HANDLE_TTL_DAYS, nowMs: deps.clock.now() };
}

/**
 * The state checkpoint at the head: the head itself, or, when the head is a
 * duration-only leaf (a run that ended before writing anything), the state
 * it copies. A handle is never a duration leaf: admission reclaims those.
 */
async function stateHandleAtHead(accessor: CheckpointAccessor, threadId: string): Promise<string | null> {
  let tuple = await accessor.rawTuple(threadId);
  for (let i = 0; tuple && isDurationOnly(tuple.metadata) && i < 1000; i += 1) {
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    tuple = parentId ? await accessor.rawTuple(threadId, parentId) : undefined;
  }
  return tuple ? String(tuple.config.configurable?.checkpoint_id) : null;
}

/**
 * A thread whose run history still lives in a legacy leaf's maps (written
 * before checkpoint_runs) gets those runs recorded before its first new run,
 * so the history keeps every run once the leaf is reclaimed.
 */
async function importLegacyHistory(deps: RunDeps, threadId: string, carried: AdmittedRunHistory | null): Promise<void> {
  const { store, accessor } = deps;
  if (!store || (await store.hasRuns(threadId))) return;
  const legacy = carried ?? (await readCumulative(accessor, threadId, await accessor.rawTuple(threadId)));
  const runs = runOrderOf(legacy).map((runId) => ({ runId, durationMs: legacy.run_durations[runId]!, messageIds: legacy.run_message_ids[runId] ?? [] }));
  if (runs.length > 0) await store.importLegacyRuns(threadId, runs, deps.clock.now());
}

type Finished = { runId: string; status: RunStatus; checkpointId: string | null; messageIds: string[]; durationMs?: number; leaf?: PersistedDuration };

/** Records the run and its handle, then answers the run result. */
async function recordRun(deps: RunDeps, threadId: string, run: Finished): Promise<RunResult> {
  await deps.store?.recordRun({
    threadId,
    runId: run.runId,
    status: run.status,
    durationMs: run.durationMs ?? null,
    messageIds: run.messageIds,
    handleId: run.checkpointId,
    leafId: run.leaf?.leafId ?? null,
    leafDigest: run.leaf?.leafDigest ?? null,
    handleDigest: run.leaf?.stateDigest ?? null,
    issuedAtMs: deps.clock.now(),
  });
  return { runId: run.runId, status: run.status, checkpointId: run.checkpointId };
}

export async function startRun(deps: RunDeps, request: RunRequest): Promise<RunResult> {
  const { accessor, clock, newId, locks } = deps;
  const { threadId } = request;
  return withThreadLock(locks, threadId, async () => {
    const expired = await deps.expired?.(threadId);
    if (expired) throw expired;
    // Existence through the gate (metadata only): the head's body, in full
    // mode the whole conversation, is decoded below only when admission
    // handed over no run history.
    if (!(await accessor.gate(threadId))) throw new AppError("not_found", `Thread ${threadId} does not exist`);
    const prepared = request.prepare ? await request.prepare() : null;
    const content = prepared?.content ?? request.content;
    const resumeFrom = prepared?.checkpointId ?? request.checkpointId;
    // A run continues the head's lineage (delta writes even a resume onto the
    // head) or, in full mode, forks the resume target's: a broken one answers
    // 409 before anything is reclaimed or written.
    await accessor.assertIntactPath(threadId, resumeFrom && accessor.config.mode === "full" ? resumeFrom : undefined);
    // Retention admission: once the request is known valid (a rejected one
    // must not reclaim the leaf), before anything is written; the resume
    // target is a selector and stays protected.
    // A run handle the client sends past its time to live answers 410 (stored or reclaimed alike).
    if (request.checkpointId) {
      const expired = await expiredHandle({ store: deps.store, threadId, checkpointId: request.checkpointId, policy: handlePolicy(deps) });
      if (expired) throw expired;
    }
    const missing = () => new AppError("not_found", `Checkpoint ${resumeFrom} is not part of thread ${threadId}`);
    if (deps.admit && resumeFrom && !(await accessor.rawTuple(threadId, resumeFrom))) throw missing();
    const carried = deps.admit ? await deps.admit({ threadId, selectors: resumeFrom ? [resumeFrom] : [] }) : null;
    await importLegacyHistory(deps, threadId, carried);
    const runId = newId();
    const started = clock.now();
    const rollback = request.rollbackOnCancel ? await captureRollbackPoint(accessor, threadId, deps.log) : null;
    let config = accessor.runConfig(threadId);
    if (resumeFrom) {
      if (accessor.config.mode === "full") {
        if (!(await accessor.rawTuple(threadId, resumeFrom))) throw missing();
        config = accessor.runConfig(threadId, resumeFrom);
      } else {
        await linearizeResume(accessor, threadId, resumeFrom, missing);
      }
    }
    const messageIds: string[] = [];
    const mint = () => {
      const id = newId();
      messageIds.push(id);
      return id;
    };
    const script: AgentScript = { runId, newId: mint, toolPayloadBytes: deps.toolPayloadBytes ?? 0, beforeNode: request.beforeNode };
    const human = new HumanMessage({ id: mint(), content });
    try {
      await accessor.graph().invoke(
        { messages: [human] },
        { configurable: { ...config.configurable, [SCRIPT_KEY]: script }, signal: request.signal },
      );
    } catch (error) {
      // A broken lineage is the thread's state, not this run's failure: 409.
      if (isAppError(error) && error.code === "checkpoint_lineage_integrity") throw error;
      const cancelled = request.signal?.aborted === true;
      // The aborted graph may still be writing its last checkpoints: the
      // restore (and the handle below) must see the real head.
      await settleWrites(accessor.saver);
      deps.log?.warn({ threadId, runId, cancelled, err: { name: (error as Error).name } }, "agent run ended early");
      const status = cancelled ? "cancelled" : "error";
      // The handle: the restored pre-run state, or the state checkpoint at
      // the head (the one holding the failed task's pending writes; never a
      // duration leaf, even when the run ended before writing anything).
      const handle = cancelled && rollback ? await restoreRollbackPoint(accessor, threadId, rollback) : await stateHandleAtHead(accessor, threadId);
      return recordRun(deps, threadId, { runId, status, checkpointId: handle, messageIds });
    }
    // The handle is the run's last state checkpoint, never the leaf:
    // admission reclaims the leaf when the next run starts; the handle is
    // recorded and protected until its time to live (handles.ts).
    const durationMs = clock.now() - started;
    const leaf = await persistRunDuration({ accessor, threadId, runId, durationMs, clock });
    return recordRun(deps, threadId, { runId, status: "success", checkpointId: leaf.stateId, messageIds, durationMs, leaf });
  });
}
