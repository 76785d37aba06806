// The one choke point for thread-state access. It binds graph + saver + mode:
// every read and write injects the mode into the config, runs the
// compatibility gate first, and answers materialized state (delta
// checkpoints hold no `messages` in channel_values; raw reads see nothing).
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver, CheckpointMetadata, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { Overwrite, type StateSnapshot } from "@langchain/langgraph";
import { agentGraph, type AgentGraph } from "./agent";
import { assertModeCompatible, checkpointMode } from "./detect";
import { MODE_MARKER_KEY } from "./stamping-saver";
import { IDLE_HEAD_KEY } from "./idle-head";
import type { ModeConfig } from "./mode";
import { mutationGraph, MUTATION_NODE } from "./mutation-graph";
import { readRetryingOnce, type RetentionEpochs } from "./cleanup/epoch";
import { AppError } from "@/server/errors";
import type { PathBreak } from "./store";
import { schemaDefaults, type AgentValues } from "./schema";

export type ThreadSnapshot = {
  threadId: string;
  checkpointId: string;
  parentCheckpointId: string | null;
  createdAt: string | null;
  metadata: Record<string, unknown>;
  values: AgentValues;
  next: string[];
  /** True when the read fell back to the raw checkpoint (full mode only). */
  degraded: boolean;
};

export type AccessorOptions = {
  saver: BaseCheckpointSaver;
  config: ModeConfig;
  /** Builds the thread's graph; a throw degrades full-mode reads to raw reads. */
  buildGraph?: (config: ModeConfig, saver: BaseCheckpointSaver) => AgentGraph;
  /** The counter retention deletions bump; without it reads never retry. */
  epochs?: RetentionEpochs;
};

export type CheckpointAccessor = ReturnType<typeof createCheckpointAccessor>;

function asValues(raw: Record<string, unknown> | undefined): AgentValues {
  const d = schemaDefaults();
  return {
    messages: Array.isArray(raw?.messages) ? (raw.messages as AgentValues["messages"]) : d.messages,
    title: typeof raw?.title === "string" ? raw.title : d.title,
    notes: Array.isArray(raw?.notes) ? (raw.notes as string[]) : d.notes,
  };
}

function fromSnapshot(threadId: string, s: StateSnapshot): ThreadSnapshot {
  return {
    threadId,
    checkpointId: String(s.config.configurable?.checkpoint_id ?? ""),
    parentCheckpointId: (s.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
    createdAt: s.createdAt ?? null,
    metadata: { ...(s.metadata ?? {}) },
    values: asValues(s.values as Record<string, unknown>),
    next: [...s.next],
    degraded: false,
  };
}

function fromRawTuple(threadId: string, t: CheckpointTuple): ThreadSnapshot {
  return {
    threadId,
    checkpointId: String(t.config.configurable?.checkpoint_id ?? ""),
    parentCheckpointId: (t.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
    // The standard checkpoint `ts`; metadata only as a compatibility fallback.
    createdAt: t.checkpoint.ts ?? ((t.metadata as Record<string, unknown> | undefined)?.created_at as string | undefined) ?? null,
    metadata: { ...(t.metadata ?? {}) },
    values: asValues(t.checkpoint.channel_values),
    // Task presence is not derivable from a raw read.
    next: [],
    degraded: true,
  };
}

export function createCheckpointAccessor(options: AccessorOptions) {
  const { saver, config } = options;
  const build = options.buildGraph ?? agentGraph;

  function threadConfig(threadId: string, checkpointId?: string): RunnableConfig {
    const configurable: Record<string, unknown> = { thread_id: threadId, checkpoint_ns: "", [MODE_MARKER_KEY]: config.mode };
    if (checkpointId) configurable.checkpoint_id = checkpointId;
    return { configurable };
  }

  type MetadataReader = { latestMetadata(threadId: string): Promise<CheckpointMetadata | undefined> };
  const metadataReader = typeof (saver as unknown as Partial<MetadataReader>).latestMetadata === "function" ? (saver as unknown as MetadataReader) : null;

  /** Runs the compatibility gate; answers whether the thread exists. */
  async function gate(threadId: string): Promise<boolean> {
    const metadata = metadataReader
      ? await metadataReader.latestMetadata(threadId)
      : (await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))?.metadata;
    if (metadata === undefined) return false;
    assertModeCompatible({ processMode: config.mode, threadMode: checkpointMode(metadata), threadId });
    return true;
  }

  function graphOrNull(): AgentGraph | null {
    try {
      return build(config, saver);
    } catch (error) {
      // Delta state cannot be materialized without the channel table.
      if (config.mode === "delta") throw error;
      return null;
    }
  }

  type PathReader = { pathBreak(threadId: string, fromId?: string): Promise<PathBreak | null> };
  const pathReader = typeof (saver as unknown as Partial<PathReader>).pathBreak === "function" ? (saver as unknown as PathReader) : null;

  /**
   * Fails closed when the parent chain from the checkpoint (default: the
   * head) is broken, in both modes: a full checkpoint would still read
   * complete, but a thread whose lineage was cut is not answered from a
   * guess (every read, run, branch and regenerate then answers 409).
   */
  async function assertIntactPath(threadId: string, checkpointId?: string): Promise<void> {
    const broken = await pathReader?.pathBreak(threadId, checkpointId);
    if (!broken) return;
    const why = broken.kind === "cycle" ? `cycle at checkpoint ${broken.checkpointId}` : `checkpoint ${broken.checkpointId} points at missing parent ${broken.parentId}`;
    throw new AppError("checkpoint_lineage_integrity", `Checkpoint lineage of thread ${threadId} is broken: ${why}`, { threadId });
  }

  async function readState(threadId: string, checkpointId?: string): Promise<ThreadSnapshot | null> {
    if (!(await gate(threadId))) return null;
    await assertIntactPath(threadId, checkpointId);
    const graph = graphOrNull();
    if (!graph) {
      const tuple = await saver.getTuple(threadConfig(threadId, checkpointId));
      return tuple ? fromRawTuple(threadId, tuple) : null;
    }
    if (checkpointId && !(await saver.getTuple(threadConfig(threadId, checkpointId)))) return null;
    return fromSnapshot(threadId, await graph.getState(threadConfig(threadId, checkpointId)));
  }

  // Retention may reclaim a checkpoint while a read walks ancestors (reads
  // are not under the thread lock): such a read runs once more.
  async function getState(threadId: string, checkpointId?: string): Promise<ThreadSnapshot | null> {
    return readRetryingOnce(options.epochs, threadId, () => readState(threadId, checkpointId));
  }

  /**
   * State of a checkpoint the caller resolved through a gated read of the
   * same thread (lineage probes): no second gate and no existence pre-read,
   * so one materialization per call. A missing checkpoint answers null.
   */
  async function stateAt(threadId: string, checkpointId: string): Promise<ThreadSnapshot | null> {
    const graph = graphOrNull();
    if (!graph) return readState(threadId, checkpointId);
    const snapshot = await graph.getState(threadConfig(threadId, checkpointId));
    // A missing checkpoint comes back as an empty snapshot without metadata.
    return snapshot.metadata === undefined ? null : fromSnapshot(threadId, snapshot);
  }

  /** Newest first. 0 -> [] without touching storage; undefined -> unlimited. */
  async function history(threadId: string, limit?: number): Promise<ThreadSnapshot[]> {
    if (limit === 0) return [];
    return readRetryingOnce(options.epochs, threadId, () => readHistory(threadId, limit));
  }

  async function readHistory(threadId: string, limit?: number): Promise<ThreadSnapshot[]> {
    if (!(await gate(threadId))) return [];
    await assertIntactPath(threadId);
    const graph = graphOrNull();
    const out: ThreadSnapshot[] = [];
    if (!graph) {
      for await (const t of saver.list(threadConfig(threadId), limit === undefined ? undefined : { limit })) out.push(fromRawTuple(threadId, t));
      return out;
    }
    for await (const s of graph.getStateHistory(threadConfig(threadId), limit === undefined ? undefined : { limit })) {
      out.push(fromSnapshot(threadId, s));
    }
    return out;
  }

  /** Raw tuple of one checkpoint (lineage walks, rollback capture), gated. */
  async function rawTuple(threadId: string, checkpointId?: string): Promise<CheckpointTuple | undefined> {
    if (!(await gate(threadId))) return undefined;
    return saver.getTuple(threadConfig(threadId, checkpointId));
  }

  type LinkReader = { parentLinks(threadId: string): Promise<Map<string, string | null>> };
  const linkReader = typeof (saver as unknown as Partial<LinkReader>).parentLinks === "function" ? (saver as unknown as LinkReader) : null;

  /**
   * Parent link of every checkpoint of the thread (ids only, nothing decoded),
   * gated; null when the saver cannot answer it (the walk then steps through
   * raw tuples).
   */
  async function parentLinks(threadId: string): Promise<Map<string, string | null> | null> {
    if (!linkReader) return null;
    await gate(threadId);
    return linkReader.parentLinks(threadId);
  }

  /** Raw tuples newest first (bounded fallback scans), gated. */
  async function rawList(threadId: string, limit: number): Promise<CheckpointTuple[]> {
    await gate(threadId);
    const out: CheckpointTuple[] = [];
    for await (const t of saver.list(threadConfig(threadId), { limit })) out.push(t);
    return out;
  }

  /**
   * Wholesale replacement through the state-only mutation graph: `Overwrite`
   * for every reducer channel, channels missing from `values` reset to their
   * schema default. With `fromCheckpointId` the write forks from that
   * checkpoint (full mode only); otherwise it lands on the current head.
   */
  async function replace(threadId: string, values: Partial<AgentValues>, fromCheckpointId?: string): Promise<string> {
    await gate(threadId);
    if (fromCheckpointId && config.mode === "delta") throw new Error("delta threads never fork; replace onto the head");
    const d = schemaDefaults();
    const update = {
      messages: new Overwrite(values.messages ?? d.messages),
      notes: new Overwrite(values.notes ?? d.notes),
      title: new Overwrite(values.title ?? d.title),
    };
    // The written head keeps only the state channels: the agent's trigger
    // channels are cleared, so it is idle on every engine (idle-head.ts).
    const target = threadConfig(threadId, fromCheckpointId);
    const idle = { ...target, configurable: { ...target.configurable, [IDLE_HEAD_KEY]: Object.keys(d) } };
    const written = await mutationGraph(config, saver).updateState(idle, update, MUTATION_NODE);
    return String(written.configurable?.checkpoint_id);
  }

  /** Config for running the agent graph on the thread (mode injected). */
  function runConfig(threadId: string, checkpointId?: string): RunnableConfig {
    return threadConfig(threadId, checkpointId);
  }

  return { config, saver, gate, assertIntactPath, getState, stateAt, history, rawTuple, rawList, parentLinks, replace, runConfig, graph: () => build(config, saver) };
}
