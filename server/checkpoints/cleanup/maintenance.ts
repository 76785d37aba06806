// The exhaustive maintenance engine (CRC-08/09/12): whole threads, safe forms
// only — trailing duration-only leaves and leaf sibling branches, plus
// (opt-in) proven grafts of duration-only chain links. Each thread is one
// immediate transaction that deletes checkpoint and writes rows together,
// repeated to a fixed point (a pruned leaf can expose another). Analysis
// runs the identical pass and rolls it back, so its "after" is exact.
// Orphan writes are counted from the surviving set and never guessed at.
import type { HandlePolicy } from "../handles";
import type { CheckpointStore, ThreadTotals } from "../store";
import { withThreadLock, type ThreadLocks } from "../thread-lock";
import type { RunHistoryCache } from "./run-history";
import { graftJointly, headChain, judgeDeletion, judgeGraft } from "./protected-set";
import { loadThreadGraph } from "./thread-graph";

export type ThreadSkip = "unknown_namespace" | "broken_lineage";

export type ThreadReport = {
  threadId: string;
  before: ThreadTotals;
  after: ThreadTotals;
  deleted: { trailingLeaves: number; leafSiblings: number; graftedLinks: number; writes: number };
  /** A trailing leaf kept for admission (keepRunHistoryCarrier). */
  keptCarrier: boolean;
  orphanWritesBefore: number;
  orphanWritesAfter: number;
  skipped: ThreadSkip | null;
};

export type EngineOptions = {
  store: CheckpointStore;
  /** Analysis: compute exactly, then roll back. */
  dryRun: boolean;
  /** Also remove duration-only chain links by proven grafting. */
  graftLinks?: boolean;
  /** Explicit resume targets (never deleted). */
  pins?: ReadonlySet<string>;
  /** Clock and time to live of run handles; without it every recorded handle is kept. */
  handles?: HandlePolicy;
  /**
   * Keep each idle thread's trailing duration leaf: it carries the
   * run-history cache, and admission reclaims it when the next run starts
   * (reclaiming it here would only make history reads scan). The admin pass
   * sets this; contract measurements leave it off.
   */
  keepRunHistoryCarrier?: boolean;
};

class Rollback extends Error {}

const MAX_ROUNDS = 1000;

async function prune(options: EngineOptions, threadId: string, report: ThreadReport): Promise<void> {
  const { store, pins, handles } = options;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const graph = await loadThreadGraph(store, threadId);
    const chain = headChain(graph);
    if (graph.foreignNamespaceRows > 0 || !chain) {
      report.skipped = graph.foreignNamespaceRows > 0 ? "unknown_namespace" : "broken_lineage";
      return;
    }
    const leaves: string[] = [];
    const grafts: Array<[string, string]> = [];
    for (const id of graph.nodes.keys()) {
      const verdict = await judgeDeletion({ store, graph, checkpointId: id, pins, handles, chain });
      if (verdict.deletable && verdict.form === "trailing_duration_leaf" && options.keepRunHistoryCarrier) {
        report.keptCarrier = true;
        continue;
      }
      if (verdict.deletable) {
        leaves.push(id);
        if (verdict.form === "trailing_duration_leaf") report.deleted.trailingLeaves += 1;
        else report.deleted.leafSiblings += 1;
        continue;
      }
      if (!options.graftLinks || !verdict.reasons.includes("duration_chain_link")) continue;
      const graft = await judgeGraft({ store, graph, checkpointId: id, pins, handles, chain });
      if (graft.graftable) grafts.push([id, graft.parentId]);
    }
    if (leaves.length === 0 && grafts.length === 0) return;
    if (leaves.length > 0) report.deleted.writes += (await store.deleteCheckpoints(threadId, leaves)).writes;
    for (const [link, parent] of grafts) report.deleted.writes += (await graftJointly(store, threadId, link, parent)).writes;
    report.deleted.graftedLinks += grafts.length;
  }
}

/** One thread, one transaction (the caller holds the thread lock). */
export async function maintainThread(options: EngineOptions, threadId: string): Promise<ThreadReport> {
  const { store } = options;
  let report: ThreadReport | null = null;
  try {
    await store.transaction(async () => {
      const before = await store.threadTotals(threadId);
      const r: ThreadReport = {
        threadId,
        before,
        after: before,
        deleted: { trailingLeaves: 0, leafSiblings: 0, graftedLinks: 0, writes: 0 },
        orphanWritesBefore: await store.countOrphanWrites(threadId),
        orphanWritesAfter: 0,
        keptCarrier: false,
        skipped: null,
      };
      await prune(options, threadId, r);
      r.after = await store.threadTotals(threadId);
      r.orphanWritesAfter = await store.countOrphanWrites(threadId);
      report = r;
      if (options.dryRun) throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
  return report!;
}

export type EngineRun = EngineOptions & {
  locks: ThreadLocks;
  /** Invalidated before a thread's rows can change. */
  cache?: RunHistoryCache;
  threadIds?: string[];
  /** Wraps each thread (the maintenance lease). */
  around?: <T>(fn: () => Promise<T>) => Promise<T>;
  shouldStop?: () => boolean;
  onThread?: (report: ThreadReport, done: number, total: number, soFar: EngineReport) => void;
  /**
   * An error `around` throws that ends the run early without failing it (a
   * scheduled cleanup deferring to the maintenance guard or the window): the
   * report so far is returned with `deferred` set.
   */
  onDeferred?: (error: unknown) => boolean;
};

export type EngineReport = { threads: ThreadReport[]; before: ThreadTotals; after: ThreadTotals; stopped: boolean; deferred?: unknown };

function add(a: ThreadTotals, b: ThreadTotals): ThreadTotals {
  return { checkpoints: a.checkpoints + b.checkpoints, writes: a.writes + b.writes, checkpointBytes: a.checkpointBytes + b.checkpointBytes, writesBytes: a.writesBytes + b.writesBytes };
}

const ZERO: ThreadTotals = { checkpoints: 0, writes: 0, checkpointBytes: 0, writesBytes: 0 };

/** Every thread in turn, each under its thread lock, yielding between threads. */
export async function runEngine(options: EngineRun): Promise<EngineReport> {
  const ids = options.threadIds ?? (await options.store.listThreadIds());
  const out: EngineReport = { threads: [], before: ZERO, after: ZERO, stopped: false };
  const around = options.around ?? (<T>(fn: () => Promise<T>) => fn());
  for (const threadId of ids) {
    if (options.shouldStop?.()) {
      out.stopped = true;
      break;
    }
    let report: ThreadReport;
    try {
      report = await around(() =>
        withThreadLock(options.locks, threadId, async () => {
          if (!options.dryRun) options.cache?.invalidate(threadId);
          return maintainThread(options, threadId);
        }),
      );
    } catch (error) {
      if (!options.onDeferred?.(error)) throw error;
      out.deferred = error;
      break;
    }
    out.threads.push(report);
    out.before = add(out.before, report.before);
    out.after = add(out.after, report.after);
    options.onThread?.(report, out.threads.length, ids.length, out);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}
