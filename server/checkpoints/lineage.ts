// Replay base lookup for branch and regenerate: walk parent links from the
// head to the newest checkpoint before the target message. Integrity
// problems fail closed; only an explicitly missing legacy parent link falls
// back to a bounded newest-first scan (never a global chronological pick,
// which could select a sibling created by regeneration).
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { AppError } from "@/server/errors";
import type { CheckpointAccessor } from "./accessor";
import { isDurationOnly } from "./durations";

export const LINEAGE_DEPTH_LIMIT = 400;
export const FALLBACK_RAW_LIMIT = 400;
export const FALLBACK_EFFECTIVE_LIMIT = 200;

/** A checkpoint that still holds the target has no parent link (legacy rows). */
export class CheckpointParentMissing extends Error {
  constructor(readonly checkpointId: string) {
    super(`checkpoint ${checkpointId} has no parent link`);
    this.name = "CheckpointParentMissing";
  }
}

function integrity(threadId: string, why: string): AppError {
  return new AppError("checkpoint_lineage_integrity", `Checkpoint lineage of thread ${threadId} is broken: ${why}`, { threadId });
}

function idOf(tuple: CheckpointTuple): string | undefined {
  const id = tuple.config.configurable?.checkpoint_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

type Probe = { hasTarget: boolean; idle: boolean };

async function probe(accessor: CheckpointAccessor, threadId: string, checkpointId: string, messageId: string): Promise<Probe> {
  const snapshot = await accessor.getState(threadId, checkpointId);
  if (!snapshot) throw integrity(threadId, `checkpoint ${checkpointId} cannot be read`);
  return { hasTarget: snapshot.values.messages.some((m) => m.id === messageId), idle: snapshot.next.length === 0 };
}

export type LineageOptions = { accessor: CheckpointAccessor; threadId: string; messageId: string; maxDepth?: number };

/**
 * The parent walk. Answers the base checkpoint id, or null when the thread's
 * root was reached without an idle pre-message checkpoint. Throws
 * CheckpointParentMissing for a legacy missing link, AppError
 * checkpoint_lineage_integrity for cycles, dangling or non-addressable
 * parents, target mismatch and depth exhaustion.
 */
export async function walkToCheckpointBefore(options: LineageOptions): Promise<string | null> {
  const { accessor, threadId, messageId, maxDepth = LINEAGE_DEPTH_LIMIT } = options;
  let tuple = await accessor.rawTuple(threadId);
  if (!tuple) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  const visited = new Set<string>();
  let passedWithout = false;
  let depth = 0;
  for (;;) {
    const id = idOf(tuple);
    if (!id) throw integrity(threadId, "a checkpoint on the path has no addressable id");
    if (visited.has(id)) throw integrity(threadId, `cycle at checkpoint ${id}`);
    visited.add(id);
    depth += 1;
    if (depth > maxDepth) throw integrity(threadId, `no base within ${maxDepth} checkpoints`);
    let hasTarget = true;
    if (!isDurationOnly(tuple.metadata)) {
      const p = await probe(accessor, threadId, id, messageId);
      hasTarget = p.hasTarget;
      if (depth === 1 && !hasTarget) throw new AppError("not_found", `Message ${messageId} is not in thread ${threadId}`);
      if (hasTarget && passedWithout) throw integrity(threadId, `target reappears above checkpoint ${id}`);
      if (!hasTarget && p.idle) return id;
      if (!hasTarget) passedWithout = true;
    }
    const parent = tuple.parentConfig;
    if (!parent) {
      if (hasTarget && !passedWithout) throw new CheckpointParentMissing(id);
      return null;
    }
    const parentId = parent.configurable?.checkpoint_id;
    if (typeof parentId !== "string" || parentId === "") throw integrity(threadId, `checkpoint ${id} has a non-addressable parent`);
    const next = await accessor.rawTuple(threadId, parentId);
    if (!next) throw integrity(threadId, `checkpoint ${id} points at missing parent ${parentId}`);
    tuple = next;
  }
}

/**
 * Bounded fallback for a missing legacy parent: 400 raw checkpoints newest
 * first (so up to 200 duration-only entries don't eat the budget), duration
 * leaves skipped, at most 200 effective ones scanned oldest to newest; the
 * base is the newest idle, addressable checkpoint before the target appears.
 */
export async function fallbackCheckpointBefore(options: LineageOptions): Promise<string | null> {
  const { accessor, threadId, messageId } = options;
  const raw = await accessor.rawList(threadId, FALLBACK_RAW_LIMIT);
  const effective = raw.filter((t) => !isDurationOnly(t.metadata) && idOf(t) !== undefined).slice(0, FALLBACK_EFFECTIVE_LIMIT);
  let base: string | null = null;
  for (const tuple of effective.reverse()) {
    const id = idOf(tuple)!;
    const p = await probe(accessor, threadId, id, messageId);
    if (p.hasTarget) break;
    if (p.idle) base = id;
  }
  return base;
}

export async function findCheckpointBeforeMessage(options: LineageOptions): Promise<string | null> {
  try {
    return await walkToCheckpointBefore(options);
  } catch (error) {
    if (error instanceof CheckpointParentMissing) return fallbackCheckpointBefore(options);
    throw error;
  }
}
