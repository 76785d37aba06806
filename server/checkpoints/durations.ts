// Duration-only checkpoints (the spec's persist_run_durations): after a
// successful run, a copy of the head checkpoint (same channel_versions, new
// id/ts) parented on the head whose metadata carries the run's duration and
// the cumulative run_durations / run_message_ids maps. This is the one
// sanctioned raw write; it goes through the saver's put so parentage holds.
// In delta mode the copy leaves out the delta channels' stored values (a
// snapshot of the whole conversation on snapshot steps): with the same
// channel_versions and no writes of its own, a read of the leaf walks to the
// parent and finds the same seed, so the copy would only duplicate bytes.
import { copyCheckpoint, uuid6, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { Clock } from "@/server/clock";
import type { CheckpointAccessor } from "./accessor";
import type { RunHistory } from "./cleanup/run-history";
import { DELTA_CHANNELS } from "./schema";

export type RunDurationEntry = { run_id: string; duration_ms: number };

/** True for a checkpoint whose only write is a run duration. */
export function isDurationOnly(metadata: Record<string, unknown> | CheckpointMetadata | undefined): boolean {
  const writes = (metadata as Record<string, unknown> | undefined)?.writes;
  if (!writes || typeof writes !== "object") return false;
  const keys = Object.keys(writes);
  return keys.length === 1 && keys[0] === "runtime_run_duration";
}

type Cumulative = { run_durations: Record<string, number>; run_message_ids: Record<string, string[]>; run_order: string[] };

/** The cumulative maps with their run order (from the stored order, or the maps' key order on older leaves). */
export function cumulativeFrom(history: RunHistory): Cumulative {
  return { run_durations: { ...history.run_durations }, run_message_ids: { ...history.run_message_ids }, run_order: runOrderOf(history) };
}

function cumulativeOf(tuple: CheckpointTuple | undefined): Cumulative | null {
  const m = tuple?.metadata as Record<string, unknown> | undefined;
  if (!m || typeof m.run_durations !== "object" || m.run_durations === null) return null;
  const order = Array.isArray(m.run_order) && m.run_order.every((id) => typeof id === "string") ? (m.run_order as string[]) : undefined;
  return cumulativeFrom({
    run_durations: m.run_durations as Record<string, number>,
    run_message_ids: (m.run_message_ids as Record<string, string[]> | undefined) ?? {},
    ...(order ? { run_order: order } : {}),
  });
}

/**
 * The cumulative maps as of the pre-run head: the head itself when it is the
 * previous duration leaf, or its parent when a linear rewrite (or rollback)
 * put a mutation checkpoint on top of that leaf.
 */
export async function readCumulative(accessor: CheckpointAccessor, threadId: string, head: CheckpointTuple | undefined): Promise<Cumulative> {
  const own = cumulativeOf(head);
  if (own) return own;
  const parentId = head?.parentConfig?.configurable?.checkpoint_id as string | undefined;
  const parent = parentId ? await accessor.rawTuple(threadId, parentId) : undefined;
  return cumulativeOf(parent) ?? { run_durations: {}, run_message_ids: {}, run_order: [] };
}

export type PersistDurationOptions = {
  accessor: CheckpointAccessor;
  threadId: string;
  runId: string;
  durationMs: number;
  messageIds: string[];
  previous: Cumulative;
  clock: Clock;
};

/** Appends the duration-only leaf; answers its id and the state checkpoint it clones. */
export async function persistRunDuration(options: PersistDurationOptions): Promise<{ leafId: string; stateId: string }> {
  const { accessor, threadId, runId, durationMs, clock } = options;
  const head = await accessor.rawTuple(threadId);
  if (!head) throw new Error("duration checkpoint without a head");
  const headMeta = (head.metadata ?? {}) as Record<string, unknown>;
  const checkpoint = copyCheckpoint(head.checkpoint);
  if (accessor.config.mode === "delta") for (const channel of DELTA_CHANNELS) delete checkpoint.channel_values[channel];
  const step = typeof headMeta.step === "number" ? headMeta.step + 1 : 0;
  // "Latest" is the greatest id: the leaf must sort after its parent even
  // when both were minted in the same millisecond.
  const headId = String(head.config.configurable?.checkpoint_id ?? head.checkpoint.id);
  checkpoint.id = uuid6(step);
  for (let i = 0; checkpoint.id <= headId && i < 100_000; i += 1) checkpoint.id = uuid6(step);
  if (checkpoint.id <= headId) throw new Error("could not mint a checkpoint id after the head");
  checkpoint.ts = new Date(clock.now()).toISOString();
  const { writes: _writes, ...carried } = headMeta;
  void _writes;
  const metadata = {
    // Delta counters and flags carry over so the snapshot cadence continues.
    ...carried,
    source: "update",
    step,
    parents: {},
    writes: { runtime_run_duration: { run_id: runId, duration_ms: durationMs } satisfies RunDurationEntry },
    run_durations: { ...options.previous.run_durations, [runId]: durationMs },
    run_message_ids: { ...options.previous.run_message_ids, [runId]: options.messageIds },
    run_order: [...options.previous.run_order.filter((id) => id !== runId), runId],
  } as unknown as CheckpointMetadata;
  const written = await accessor.saver.put(accessor.runConfig(threadId, headId), checkpoint, metadata, {});
  return { leafId: String(written.configurable?.checkpoint_id), stateId: headId };
}

/** Every run of the history, oldest first: the stored order, then any run it does not name (older leaves) in key order. */
export function runOrderOf(history: Pick<RunHistory, "run_durations" | "run_order">): string[] {
  const known = (history.run_order ?? []).filter((id, i, all) => id in history.run_durations && all.indexOf(id) === i);
  return [...known, ...Object.keys(history.run_durations).filter((id) => !known.includes(id))];
}
