// Rollback points: the complete materialized pre-run state plus the raw
// pending writes of the pre-run checkpoint, captured before a run starts.
// A capture failure disables rollback (fail closed): partial state is never
// restored.
import type { CheckpointPendingWrite, PendingWrite } from "@langchain/langgraph-checkpoint";
import type { CheckpointAccessor } from "./accessor";
import type { AgentValues } from "./schema";
import type { Logger } from "@/server/log";

export type RollbackPoint = Readonly<{
  checkpointId: string;
  values: AgentValues;
  pendingWrites: readonly CheckpointPendingWrite[];
}>;

export async function captureRollbackPoint(accessor: CheckpointAccessor, threadId: string, log?: Logger): Promise<RollbackPoint | null> {
  try {
    const state = await accessor.getState(threadId);
    const tuple = await accessor.rawTuple(threadId);
    if (!state || !tuple || state.degraded) return null;
    if (String(tuple.config.configurable?.checkpoint_id) !== state.checkpointId) return null;
    return Object.freeze({
      checkpointId: state.checkpointId,
      values: Object.freeze({ ...state.values, messages: [...state.values.messages], notes: [...state.values.notes] }),
      pendingWrites: Object.freeze([...(tuple.pendingWrites ?? [])]),
    });
  } catch (error) {
    log?.warn({ threadId, err: { name: (error as Error).name } }, "rollback capture failed; rollback disabled");
    return null;
  }
}

/**
 * Restores a captured point. Full mode forks from the pre-run checkpoint;
 * delta mode replaces every captured channel on the current head, because the
 * cancelled path's writes now hang on the shared pre-run checkpoint. Both
 * reattach only the captured pending writes.
 */
export async function restoreRollbackPoint(accessor: CheckpointAccessor, threadId: string, point: RollbackPoint): Promise<string> {
  const restoredId =
    accessor.config.mode === "full"
      ? await accessor.replace(threadId, point.values, point.checkpointId)
      : await accessor.replace(threadId, point.values);
  const byTask = new Map<string, PendingWrite[]>();
  for (const [taskId, channel, value] of point.pendingWrites) {
    const list = byTask.get(taskId) ?? [];
    list.push([channel, value]);
    byTask.set(taskId, list);
  }
  for (const [taskId, writes] of byTask) {
    await accessor.saver.putWrites(accessor.runConfig(threadId, restoredId), writes, taskId);
  }
  return restoredId;
}
