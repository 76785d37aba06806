// The run history: every run's duration and message ids. Runs record it in
// checkpoint_runs, one row per run beside the checkpoints (so no checkpoint
// grows with the thread and reclaiming a leaf loses nothing): reads take it
// from there (source "runs"). Threads written before that table carry it as
// the run-history metadata cache (run_durations, run_message_ids) on the
// trailing duration leaf: for them, reads take it from the latest checkpoint
// only and fall back to a bounded scan when the latest is not a carrier.
// Reads never write: a history read must not bring a reclaimed leaf back
// (cleanup runs only at admission, never from a completion callback).
import { parse } from "lossless-json";
import { z } from "zod";
import type { RunHistoryResponse } from "@/lib/checkpoints/api";
import { AppError } from "@/server/errors";
import type { CheckpointAccessor } from "../accessor";
import { isDurationOnly, runOrderOf } from "../durations";
import type { CheckpointStore } from "../store";

export const runHistorySchema = z.strictObject({
  run_durations: z.record(z.string(), z.number().nonnegative()),
  run_message_ids: z.record(z.string(), z.array(z.string())),
  // Run ids oldest first. The maps' key order is not enough: PostgresSaver
  // keeps metadata as jsonb, which sorts object keys. Absent on older leaves.
  run_order: z.array(z.string()).optional(),
});
export type RunHistory = z.infer<typeof runHistorySchema>;
export type RunHistorySource = "runs" | "cache" | "latest" | "scan";
export type RunHistoryRead = { history: RunHistory; source: RunHistorySource };

/** Process memo keyed by the carrier leaf id; the public lifecycle API is `invalidate`. */
export type RunHistoryCache = {
  get(threadId: string, leafId: string): RunHistory | undefined;
  set(threadId: string, leafId: string, history: RunHistory): void;
  invalidate(threadId: string): void;
};

export function createRunHistoryCache(): RunHistoryCache {
  const entries = new Map<string, { leafId: string; history: RunHistory }>();
  return {
    get: (threadId, leafId) => {
      const e = entries.get(threadId);
      return e && e.leafId === leafId ? e.history : undefined;
    },
    set: (threadId, leafId, history) => void entries.set(threadId, { leafId, history }),
    invalidate: (threadId) => void entries.delete(threadId),
  };
}

/** Parses the maps (and the run order) from stored JSON text (lossless; non-finite numbers fail closed). */
export function parseRunHistoryText(durations: string | null, messageIds: string | null, order: string | null = null): RunHistory | null {
  if (durations === null) return null;
  try {
    const number = (v: string) => {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new RangeError("duration out of range");
      return n;
    };
    const parsed = runHistorySchema.safeParse({
      run_durations: parse(durations, null, number),
      run_message_ids: messageIds === null ? {} : parse(messageIds, null, number),
      ...(order === null ? {} : { run_order: parse(order) }),
    });
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function fromMetadata(metadata: Record<string, unknown> | undefined): RunHistory | null {
  if (!metadata || metadata.run_durations === undefined) return null;
  const parsed = runHistorySchema.safeParse({
    run_durations: metadata.run_durations,
    run_message_ids: metadata.run_message_ids ?? {},
    ...(metadata.run_order === undefined ? {} : { run_order: metadata.run_order }),
  });
  return parsed.success ? parsed.data : null;
}

export const SCAN_LIMIT = 400;

/**
 * The fast path: the latest checkpoint's cache (memoized per carrier leaf).
 * Otherwise a newest-first scan of at most SCAN_LIMIT checkpoints merging
 * whatever duration checkpoints survive (older entries never override newer).
 */
export type ReadRunHistoryOptions = { accessor: CheckpointAccessor; threadId: string; cache?: RunHistoryCache; store?: CheckpointStore };

/** The successful runs checkpoint_runs holds, oldest first. */
async function fromRuns(store: CheckpointStore, threadId: string): Promise<RunHistory> {
  const history: RunHistory = { run_durations: {}, run_message_ids: {}, run_order: [] };
  for (const run of await store.listRuns(threadId)) {
    if (run.status !== "success" || run.durationMs === null) continue;
    history.run_durations[run.runId] = run.durationMs;
    history.run_message_ids[run.runId] = run.messageIds;
    history.run_order!.push(run.runId);
  }
  return history;
}

export async function readRunHistory(options: ReadRunHistoryOptions): Promise<RunHistoryRead | null> {
  const { accessor, threadId, cache, store } = options;
  if (store && (await store.hasRuns(threadId))) {
    // The gate still runs first: a delta thread read by a full process is refused.
    if (!(await accessor.gate(threadId))) return null;
    return { history: await fromRuns(store, threadId), source: "runs" };
  }
  const head = await accessor.rawTuple(threadId);
  if (!head) return null;
  const headId = String(head.config.configurable?.checkpoint_id ?? "");
  const memo = cache?.get(threadId, headId);
  if (memo) return { history: memo, source: "cache" };
  const latest = fromMetadata(head.metadata as Record<string, unknown> | undefined);
  if (latest) {
    cache?.set(threadId, headId, latest);
    return { history: latest, source: "latest" };
  }
  const merged: RunHistory = { run_durations: {}, run_message_ids: {} };
  const orders: string[][] = [];
  for (const tuple of await accessor.rawList(threadId, SCAN_LIMIT)) {
    const meta = tuple.metadata as Record<string, unknown> | undefined;
    if (!isDurationOnly(meta)) continue;
    const carried = fromMetadata(meta);
    const own = (meta?.writes as { runtime_run_duration?: { run_id?: unknown; duration_ms?: unknown } }).runtime_run_duration;
    const entries: Array<[string, number]> = carried ? Object.entries(carried.run_durations) : [];
    if (typeof own?.run_id === "string" && typeof own.duration_ms === "number") entries.push([own.run_id, own.duration_ms]);
    for (const [runId, ms] of entries) if (!(runId in merged.run_durations)) merged.run_durations[runId] = ms;
    orders.push([...(carried ? runOrderOf(carried) : []), ...(typeof own?.run_id === "string" ? [own.run_id] : [])]);
    for (const [runId, ids] of Object.entries(carried?.run_message_ids ?? {})) merged.run_message_ids[runId] ??= ids;
  }
  // Newest carrier first: older carriers' orders go first, newer ones append.
  const order: string[] = [];
  for (const ids of orders.reverse()) for (const id of ids) if (!order.includes(id)) order.push(id);
  merged.run_order = order;
  return { history: merged, source: "scan" };
}

/** The API view of a thread's run history (404 when the thread does not exist). */
export async function readRunHistoryView(options: ReadRunHistoryOptions): Promise<RunHistoryResponse> {
  const read = await readRunHistory(options);
  if (!read) throw new AppError("not_found", `Thread ${options.threadId} does not exist`);
  const { run_durations: durations, run_message_ids: messageIds } = read.history;
  return {
    threadId: options.threadId,
    source: read.source,
    runs: runOrderOf(read.history).map((runId) => ({ runId, durationMs: durations[runId]!, messageIds: messageIds[runId] ?? [] })),
  };
}

