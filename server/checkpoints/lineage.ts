// Replay base lookup for branch and regenerate: walk parent links from the
// head to the newest idle checkpoint before the target message. The walk
// reads ids and parent links only (one query for the whole thread); state is
// materialized only to bisect the path and to check the base, so a
// 1,000-turn thread costs a few dozen reads, not thousands. There is no depth
// budget on an intact chain beyond the cycle guard. Integrity problems fail
// closed; only an explicitly missing legacy parent link falls back to the
// bounded newest-first scan of CCM-14 (never a global chronological pick,
// which could select a sibling created by regeneration).
//
// The bisection needs a stretch of the path where the target, once there,
// stays. From the head that holds only while no state was written onto the
// head: a delta resume copies an old checkpoint's conversation onto the head,
// so a message a regenerate had replaced comes back further up, and the path
// holds it in separate stretches. A message id exists only from the run that
// minted it on, though: below that run's handle (its last state checkpoint,
// recorded in checkpoint_runs) the path holds the message down to the run's
// first checkpoint and never again. So the bisection starts at that handle
// when it is on the path and holds the target; otherwise at the head, where
// a message seen in two stretches still fails closed.
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { AppError } from "@/server/errors";
import type { CheckpointAccessor, ThreadSnapshot } from "./accessor";
import { isDurationOnly } from "./durations";

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

type Probe = { hasTarget: boolean; idle: boolean; durationOnly: boolean; ids: string[] };

async function probe(accessor: CheckpointAccessor, threadId: string, checkpointId: string, messageId: string): Promise<Probe> {
  // The walk starts with a gated read of the head, so probes skip the gate.
  const snapshot: ThreadSnapshot | null = await accessor.stateAt(threadId, checkpointId);
  if (!snapshot) throw integrity(threadId, `checkpoint ${checkpointId} cannot be read`);
  const ids = snapshot.values.messages.map((m) => String(m.id));
  return { hasTarget: ids.includes(messageId), idle: snapshot.next.length === 0, durationOnly: isDurationOnly(snapshot.metadata), ids };
}

export type LineageOptions = {
  accessor: CheckpointAccessor;
  threadId: string;
  messageId: string;
  /**
   * A snapshot the caller just read through a gated read (branch, regenerate):
   * the walk starts at its checkpoint and uses its message ids instead of
   * materializing the head a second time. Default: the thread's head.
   */
  from?: { checkpointId: string; messageIds: readonly string[] };
  /**
   * The handle of the run that minted a message (checkpoint_runs), null when
   * none is recorded (a message copied in by a branch, runs from before the
   * table, savers without our tables).
   */
  mintedIn?: (messageId: string) => Promise<string | null>;
};

/** Ids from `startId` to the thread's root, following parent links; no state is read. */
async function pathToRoot(accessor: CheckpointAccessor, threadId: string, startId: string): Promise<string[]> {
  const links = await accessor.parentLinks(threadId);
  const path: string[] = [];
  const visited = new Set<string>();
  let id = startId;
  let tuple: CheckpointTuple | undefined = links ? undefined : await accessor.rawTuple(threadId, startId);
  if (links ? !links.has(id) : !tuple) throw integrity(threadId, `checkpoint ${id} vanished during the walk`);
  for (;;) {
    if (visited.has(id)) throw integrity(threadId, `cycle at checkpoint ${id}`);
    visited.add(id);
    path.push(id);
    let parentId: unknown;
    if (links) {
      parentId = links.get(id);
      if (parentId === null) return path;
    } else {
      // A saver without link reads: step through raw tuples (ids only are used).
      const parent = tuple!.parentConfig;
      if (!parent) return path;
      parentId = parent.configurable?.checkpoint_id;
    }
    if (typeof parentId !== "string" || parentId === "") throw integrity(threadId, `checkpoint ${id} has a non-addressable parent`);
    if (links ? !links.has(parentId) : !(tuple = await accessor.rawTuple(threadId, parentId))) {
      throw integrity(threadId, `checkpoint ${id} points at missing parent ${parentId}`);
    }
    id = parentId;
  }
}

/** The walk's start: the caller's snapshot, or the head read once here. */
async function startOf(options: LineageOptions): Promise<{ id: string; messageIds: readonly string[] }> {
  const { accessor, threadId, messageId } = options;
  if (options.from) return { id: options.from.checkpointId, messageIds: options.from.messageIds };
  const head = await accessor.rawTuple(threadId);
  if (!head) throw new AppError("not_found", `Thread ${threadId} does not exist`);
  const id = idOf(head);
  if (!id) throw integrity(threadId, "a checkpoint on the path has no addressable id");
  return { id, messageIds: (await probe(accessor, threadId, id, messageId)).ids };
}

/**
 * Index on the path where the bisection starts: the handle of the run that
 * minted the target when it is on the path and holds the target (below it the
 * path holds the target in one stretch), else the start (index 0). A record
 * that does not lead to the target is not used.
 */
async function mintingStretchTop(options: LineageOptions, path: readonly string[]): Promise<number> {
  const handle = (await options.mintedIn?.(options.messageId)) ?? null;
  const index = handle ? path.indexOf(handle) : -1;
  if (index <= 0) return 0;
  return (await probe(options.accessor, options.threadId, handle!, options.messageId)).hasTarget ? index : 0;
}

/**
 * The parent walk. Answers the base checkpoint id, or null when the thread's
 * root was reached without an idle pre-message checkpoint. Throws
 * CheckpointParentMissing for a legacy missing link (the root still holds the
 * target), AppError checkpoint_lineage_integrity for cycles, dangling or
 * non-addressable parents and target mismatches.
 */
export async function walkToCheckpointBefore(options: LineageOptions): Promise<string | null> {
  const { accessor, threadId, messageId } = options;
  const start = await startOf(options);
  if (!start.messageIds.includes(messageId)) throw new AppError("not_found", `Message ${messageId} is not in thread ${threadId}`);
  const path = await pathToRoot(accessor, threadId, start.id);
  const rootIndex = path.length - 1;
  if (rootIndex === 0 || (await probe(accessor, threadId, path[rootIndex]!, messageId)).hasTarget) {
    throw new CheckpointParentMissing(path[rootIndex]!);
  }
  // Bisect: path[lo] holds the target, path[hi] does not. Probe sizes halve
  // towards an old target, so the probes cost about one read of the start.
  let lo = await mintingStretchTop(options, path);
  let hi = rootIndex;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((await probe(accessor, threadId, path[mid]!, messageId)).hasTarget) lo = mid;
    else hi = mid;
  }
  // From the newest checkpoint without the target down to the first idle one;
  // duration-only leaves are idle copies of their parent and are stepped over.
  const before = start.messageIds.slice(0, start.messageIds.indexOf(messageId));
  for (let i = hi; i <= rootIndex; i += 1) {
    const p = await probe(accessor, threadId, path[i]!, messageId);
    if (p.hasTarget) throw integrity(threadId, `target reappears above checkpoint ${path[i - 1]}`);
    if (p.durationOnly || !p.idle) continue;
    // The base must hold exactly the conversation before the target.
    if (p.ids.length !== before.length || p.ids.some((id, k) => id !== before[k])) {
      throw integrity(threadId, `checkpoint ${path[i]} does not hold the conversation before the target`);
    }
    return path[i]!;
  }
  return null;
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
