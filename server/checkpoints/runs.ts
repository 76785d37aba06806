// Agent runs on a thread, under the per-thread lock: gate, rollback capture,
// optional resume (full: fork from the checkpoint; delta: linearize onto the
// head, never fork), the scripted graph, then the duration-only checkpoint.
import { HumanMessage } from "@langchain/core/messages";
import type { Clock } from "@/server/clock";
import { AppError, isAppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { CheckpointAccessor } from "./accessor";
import { SCRIPT_KEY, type AgentScript } from "./agent";
import { cumulativeFrom, persistRunDuration, readCumulative } from "./durations";
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

export type RunStatus = "success" | "cancelled" | "error";
export type RunResult = { runId: string; status: RunStatus; checkpointId: string | null };

/**
 * Delta state for a fork is not materializable (a shared parent also carries
 * the abandoned sibling's writes), so an older checkpoint is materialized and
 * written onto the current head instead. Unreadable targets fail closed.
 */
export async function linearizeResume(accessor: CheckpointAccessor, threadId: string, checkpointId: string): Promise<string> {
  const target = await accessor.getState(threadId, checkpointId);
  if (!target) throw new AppError("not_found", `Checkpoint ${checkpointId} is not part of thread ${threadId}`);
  return accessor.replace(threadId, target.values);
}

export async function startRun(deps: RunDeps, request: RunRequest): Promise<RunResult> {
  const { accessor, clock, newId, locks } = deps;
  const { threadId } = request;
  return withThreadLock(locks, threadId, async () => {
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
    accessor.assertIntactPath(threadId, resumeFrom && accessor.config.mode === "full" ? resumeFrom : undefined);
    // Retention admission: once the request is known valid (a rejected one
    // must not reclaim the leaf), before anything is written; the resume
    // target is a selector and stays protected.
    if (deps.admit && resumeFrom && !(await accessor.rawTuple(threadId, resumeFrom))) {
      throw new AppError("not_found", `Checkpoint ${resumeFrom} is not part of thread ${threadId}`);
    }
    const carried = deps.admit ? await deps.admit({ threadId, selectors: resumeFrom ? [resumeFrom] : [] }) : null;
    // Without a carried history admission reclaimed nothing (or a leaf
    // without run history, whose parent is now the head), so the head read
    // here is the one the run starts from.
    const previous = carried ? cumulativeFrom(carried) : await readCumulative(accessor, threadId, await accessor.rawTuple(threadId));
    const runId = newId();
    const started = clock.now();
    const rollback = request.rollbackOnCancel ? await captureRollbackPoint(accessor, threadId, deps.log) : null;
    let config = accessor.runConfig(threadId);
    if (resumeFrom) {
      if (accessor.config.mode === "full") {
        if (!(await accessor.rawTuple(threadId, resumeFrom))) {
          throw new AppError("not_found", `Checkpoint ${resumeFrom} is not part of thread ${threadId}`);
        }
        config = accessor.runConfig(threadId, resumeFrom);
      } else {
        await linearizeResume(accessor, threadId, resumeFrom);
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
      if (cancelled && rollback) {
        return { runId, status: "cancelled", checkpointId: await restoreRollbackPoint(accessor, threadId, rollback) };
      }
      const now = await accessor.rawTuple(threadId);
      return { runId, status: cancelled ? "cancelled" : "error", checkpointId: now ? String(now.config.configurable?.checkpoint_id) : null };
    }
    // The handle is the run's last state checkpoint, never the leaf:
    // admission reclaims the leaf when the next run starts, the state
    // checkpoint stays on the thread's path (see the resume-handle rule in
    // cleanup/protected-set.ts).
    const { stateId } = await persistRunDuration({
      accessor,
      threadId,
      runId,
      durationMs: clock.now() - started,
      messageIds,
      previous,
      clock,
    });
    return { runId, status: "success", checkpointId: stateId };
  });
}
