// Duration-only checkpoints (the spec's persist_run_durations): after a
// successful run, a copy of the head checkpoint (same channel_versions, new
// id/ts) parented on the head whose metadata carries the run's duration.
// This is the one sanctioned raw write; it goes through the saver's put so
// parentage holds.
// The leaf is lean: it stores no channel values and is marked
// `duration_leaf_state: "parent"`; with the same channel_versions its state
// is its parent's, which the stamping saver fills in on every read (on
// PostgreSQL the values live in blobs keyed by version, which the leaf names
// anyway). So the leaf's row stays small however long the conversation is,
// and admission deletes it without walking pages of a copied conversation.
// The run history (every run's duration and message ids) is kept beside the
// checkpoints in checkpoint_runs, one row per run, not in the leaf: leaves
// written before that carried it as ever-growing maps (run_durations,
// run_message_ids, run_order), still read when a thread has no rows yet.
import { copyCheckpoint, uuid6, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { Clock } from "@/server/clock";
import type { CheckpointAccessor } from "./accessor";
import type { RunHistory } from "./cleanup/run-history";
import { channelVersionsDigest, VERSIONS_DIGEST_KEY } from "./versions-digest";

/** Metadata key of a lean duration leaf: its state is its parent's. */
export const LEAN_LEAF_KEY = "duration_leaf_state";
/** Metadata keys of the run-history maps leaves carried before checkpoint_runs. */
const LEGACY_MAP_KEYS = ["run_durations", "run_message_ids", "run_order"] as const;

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
  clock: Clock;
};

export type PersistedDuration = {
  leafId: string;
  /** The state checkpoint the leaf copies (the run's handle). */
  stateId: string;
  /** channel_versions digests as written: the leaf's, and the one stamped on the state checkpoint. */
  leafDigest: string;
  stateDigest: string;
};

/** Appends the lean duration-only leaf; answers its id, the state checkpoint it copies and both digests. */
export async function persistRunDuration(options: PersistDurationOptions): Promise<PersistedDuration> {
  const { accessor, threadId, runId, durationMs, clock } = options;
  const head = await accessor.rawTuple(threadId);
  if (!head) throw new Error("duration checkpoint without a head");
  const headMeta = (head.metadata ?? {}) as Record<string, unknown>;
  const checkpoint = copyCheckpoint(head.checkpoint);
  checkpoint.channel_values = {};
  const step = typeof headMeta.step === "number" ? headMeta.step + 1 : 0;
  // "Latest" is the greatest id: the leaf must sort after its parent even
  // when both were minted in the same millisecond.
  const headId = String(head.config.configurable?.checkpoint_id ?? head.checkpoint.id);
  checkpoint.id = uuid6(step);
  for (let i = 0; checkpoint.id <= headId && i < 100_000; i += 1) checkpoint.id = uuid6(step);
  if (checkpoint.id <= headId) throw new Error("could not mint a checkpoint id after the head");
  checkpoint.ts = new Date(clock.now()).toISOString();
  const carried: Record<string, unknown> = { ...headMeta };
  delete carried.writes;
  for (const key of LEGACY_MAP_KEYS) delete carried[key];
  const metadata = {
    // Delta counters and flags carry over so the snapshot cadence continues.
    ...carried,
    source: "update",
    step,
    parents: {},
    writes: { runtime_run_duration: { run_id: runId, duration_ms: durationMs } satisfies RunDurationEntry },
    [LEAN_LEAF_KEY]: "parent",
  } as unknown as CheckpointMetadata;
  const written = await accessor.saver.put(accessor.runConfig(threadId, headId), checkpoint, metadata, {});
  const stamped = headMeta[VERSIONS_DIGEST_KEY];
  return {
    leafId: String(written.configurable?.checkpoint_id),
    stateId: headId,
    leafDigest: channelVersionsDigest(checkpoint.channel_versions),
    stateDigest: typeof stamped === "string" ? stamped : channelVersionsDigest(head.checkpoint.channel_versions),
  };
}

/** Every run of the history, oldest first: the stored order, then any run it does not name (older leaves) in key order. */
export function runOrderOf(history: Pick<RunHistory, "run_durations" | "run_order">): string[] {
  const known = (history.run_order ?? []).filter((id, i, all) => id in history.run_durations && all.indexOf(id) === i);
  return [...known, ...Object.keys(history.run_durations).filter((id) => !known.includes(id))];
}
