// The verbs of a task's hold (GET|PUT /api/v1/tasks/{id}/hold, the CLI's
// `compaction hold`). A held task is never compacted: eligibility skips it
// as `held` in the probe before its batches and again inside every batch's
// writer transaction (eligibility.ts, recheck.ts). Setting or releasing a
// hold is audited with the task id only.
import "server-only";
import type { TaskHold } from "@/lib/task-compaction/api";
import { formatUtc } from "@/lib/time/rfc3339";
import { audited, type AuditActor } from "@/server/audit/record";
import type { AuditStore } from "@/server/audit/store";
import type { Clock } from "@/server/clock";
import { AppError } from "@/server/errors";
import type { HoldStore, TaskHoldRow } from "./store";

/** What the hold verbs need from the runtime. */
export type HoldContext = { stores: { holds: HoldStore; audit: AuditStore }; clock: Clock };

export function toTaskHold(taskId: string, row: TaskHoldRow | null): TaskHold {
  return {
    taskId,
    held: row !== null,
    heldAt: row?.heldAt ?? null,
    heldBy: row?.heldBy ?? null,
    heldByEmail: row?.heldByEmail ?? null,
    restoreId: row?.restoreId ?? null,
  };
}

async function requireTask(store: HoldStore, taskId: string): Promise<void> {
  if (!(await store.taskExists(taskId))) throw new AppError("not_found", "Task not found");
}

/** The task's hold; not_found for an unknown task. */
export async function readTaskHold(ctx: HoldContext, taskId: string): Promise<TaskHold> {
  await requireTask(ctx.stores.holds, taskId);
  return toTaskHold(taskId, await ctx.stores.holds.readHold(taskId));
}

export type PutHoldOptions = { taskId: string; held: boolean; actor: AuditActor };

/**
 * Puts the task on hold or takes it off. Setting an existing hold keeps who
 * set it and when (nothing changes, nothing is recorded); so does releasing
 * a task that is not held.
 */
export async function putTaskHold(ctx: HoldContext, options: PutHoldOptions): Promise<TaskHold> {
  const { taskId, held, actor } = options;
  const store = ctx.stores.holds;
  // The change and its entry in one writer transaction (the hold store's:
  // on PostgreSQL it takes the compaction writer lock first).
  await audited(
    ctx,
    {
      actor,
      kind: held ? "task.hold_set" : "task.hold_released",
      detail: (didChange: boolean) => (didChange ? { taskId } : null),
      failureDetail: { taskId },
      writer: (fn) => store.writeTransaction(fn),
    },
    async () => {
      await requireTask(store, taskId);
      if (!held) return store.deleteHold(taskId);
      const nowMs = ctx.clock.now();
      return store.insertHold({ taskId, heldAt: formatUtc(nowMs), heldAtMs: nowMs, heldBy: actor, restoreId: null });
    },
  );
  return readTaskHold(ctx, taskId);
}
