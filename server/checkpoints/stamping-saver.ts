// Our one saver wrapper around the engine's LangGraph saver (SqliteSaver from
// @langchain/langgraph-checkpoint-sqlite, built by sqlite-saver.ts;
// PostgresSaver from @langchain/langgraph-checkpoint-postgres, built by
// pg-saver.ts).
// - LangGraph.js 1.7.3 builds checkpoint metadata from its own fields only
//   (config.metadata is not copied), so the delta marker is stamped here on
//   every checkpoint a delta process writes through its accessor (which
//   injects the mode into every config), and every such checkpoint, in
//   both modes, carries a digest of its channel_versions (versions-digest.ts).
//   Writes without an injected mode (the upstream validation suite) pass
//   through unchanged.
// - SqliteSaver 1.0.4 reads pending writes with json_group_array and no
//   ORDER BY, but delta replay requires them in (task_id, idx) order; reads
//   with more than one write are re-read in that order here.
// - The library's delta history walk stops silently at a missing parent and
//   answers a truncated channel; here a missing ancestor on the path fails
//   closed with checkpoint_lineage_integrity (every delta read goes through it:
//   state, history, runs, branch, regenerate).
// - A lean duration leaf (durations.ts) stores no channel values: every read
//   fills them in from its parent (same channel_versions, so the same state;
//   in delta mode the delta channels stay out, as a read walks on to the
//   parent's seed). A leaf whose parent is missing fails closed.
import { randomBytes } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";

type DeltaHistoryOptions = Parameters<BaseCheckpointSaver["getDeltaChannelHistory"]>[0];
type DeltaHistory = Awaited<ReturnType<BaseCheckpointSaver["getDeltaChannelHistory"]>>;
import { AppError } from "@/server/errors";
import type { ChannelMode } from "./mode";
import type { CheckpointStore, PathBreak } from "./store";
import { channelVersionsDigest, VERSIONS_DIGEST_KEY } from "./versions-digest";
import { clearForeignChannels, IDLE_HEAD_KEY } from "./idle-head";
import { LEAN_LEAF_KEY } from "./durations";
import { DELTA_CHANNELS } from "./schema";

export const MODE_MARKER_KEY = "checkpoint_channel_mode";

export type StampingSaverOptions = {
  /** The engine's saver, which owns the checkpoint tables. */
  inner: BaseCheckpointSaver;
  /** Creates the inner saver's tables (idempotent). */
  setup: () => void;
  /** Reads the inner saver's tables for what its API does not answer. */
  store: CheckpointStore;
  /** The process mode: a delta process stamps every checkpoint it writes. */
  mode: ChannelMode;
  /**
   * Channel versions unique per write (PostgreSQL): PostgresSaver stores
   * channel values once per (channel, version) and keeps the first on
   * conflict, so the plain counter a fork repeats (regenerate, explicit
   * resume) would read the abandoned branch's value.
   */
  uniqueVersions?: boolean;
  /** Settles when the inner saver's tables exist, for engines whose setup is async (PostgreSQL); awaited before every saver call. */
  ready?: () => Promise<void>;
};

export class StampingSaver extends BaseCheckpointSaver {
  readonly inner: BaseCheckpointSaver;
  readonly mode: ChannelMode;
  private readonly store: CheckpointStore;
  private readonly createTables: () => void;
  private readonly tablesReady: () => Promise<void>;
  private readonly uniqueVersions: boolean;
  /** Writes not yet landed: LangGraph leaves its checkpoint puts running when a run is aborted. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(options: StampingSaverOptions) {
    super(options.inner.serde);
    this.inner = options.inner;
    this.mode = options.mode;
    this.store = options.store;
    this.createTables = options.setup;
    this.tablesReady = options.ready ?? (() => Promise.resolve());
    this.uniqueVersions = options.uniqueVersions ?? false;
  }

  /**
   * With uniqueVersions: "<counter, 32 digits>.<16 random hex>", which orders
   * like the counter (LangGraph compares versions with < and >) and never
   * repeats across branches. The base class is typed for numbers; LangGraph
   * accepts string versions.
   */
  getNextVersion(current: number | undefined): number {
    if (!this.uniqueVersions) return super.getNextVersion(current);
    const previous = current === undefined ? 0 : Number.parseInt(String(current).split(".")[0]!, 10) || 0;
    return `${String(previous + 1).padStart(32, "0")}.${randomBytes(8).toString("hex")}` as unknown as number;
  }

  /** Creates the saver's own tables (idempotent). */
  setup(): void {
    this.createTables();
  }

  private async sortWrites(tuple: CheckpointTuple): Promise<CheckpointTuple> {
    const writes = tuple.pendingWrites;
    if (!writes || writes.length < 2) return tuple;
    const c = tuple.config.configurable ?? {};
    const rows = await this.store.orderedWrites({ threadId: String(c.thread_id), namespace: String(c.checkpoint_ns ?? ""), checkpointId: String(c.checkpoint_id) });
    const ordered: CheckpointPendingWrite[] = await Promise.all(
      rows.map(async (row) => [row.taskId, row.channel, await this.serde.loadsTyped(row.type ?? "json", row.value ?? "")] as CheckpointPendingWrite),
    );
    return { ...tuple, pendingWrites: ordered };
  }

  /**
   * Metadata of the thread's latest root-namespace checkpoint without
   * deserializing its channel values (the compatibility gate needs only this).
   */
  async latestMetadata(threadId: string): Promise<CheckpointMetadata | undefined> {
    await this.tablesReady();
    this.setup();
    const row = await this.store.latestMetadata(threadId);
    if (!row) return undefined;
    return (await this.serde.loadsTyped(row.type ?? "json", row.value ?? "")) as CheckpointMetadata;
  }

  /** Parent link of every root-namespace checkpoint of the thread, nothing decoded (lineage walks). */
  async parentLinks(threadId: string): Promise<Map<string, string | null>> {
    await this.tablesReady();
    this.setup();
    return this.store.parentLinks(threadId);
  }

  /** Where the parent chain from the checkpoint (default: newest) breaks; null when intact (ids only). */
  async pathBreak(threadId: string, fromId?: string): Promise<PathBreak | null> {
    await this.tablesReady();
    this.setup();
    return this.store.pathBreak(threadId, fromId);
  }

  /**
   * The upstream walk (each ancestor once, writes oldest to newest, the first
   * stored value as seed), except that a parent link pointing at a missing
   * checkpoint raises instead of answering a truncated history.
   */
  async getDeltaChannelHistory(options: DeltaHistoryOptions): Promise<DeltaHistory> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    const writesByChannel: Record<string, CheckpointPendingWrite[]> = {};
    const seeds: Record<string, unknown> = {};
    const remaining = new Set(channels);
    for (const ch of channels) writesByChannel[ch] = [];
    let cursor = (await this.getTuple(config))?.parentConfig;
    while (cursor && remaining.size > 0) {
      const tuple = await this.getTuple(cursor);
      if (!tuple) {
        const threadId = String(cursor.configurable?.thread_id ?? config.configurable?.thread_id ?? "");
        const missing = String(cursor.configurable?.checkpoint_id ?? "");
        throw new AppError("checkpoint_lineage_integrity", `Checkpoint lineage of thread ${threadId} is broken: ancestor ${missing} is missing`, {
          threadId,
        });
      }
      const perChannel: Record<string, CheckpointPendingWrite[]> = {};
      for (const write of tuple.pendingWrites ?? []) if (remaining.has(write[1])) (perChannel[write[1]] ??= []).push(write);
      // Collected newest first, reversed at the end.
      for (const [ch, block] of Object.entries(perChannel)) for (let i = block.length - 1; i >= 0; i -= 1) writesByChannel[ch]!.push(block[i]!);
      for (const ch of [...remaining]) {
        if (Object.prototype.hasOwnProperty.call(tuple.checkpoint.channel_values, ch)) {
          seeds[ch] = tuple.checkpoint.channel_values[ch];
          remaining.delete(ch);
        }
      }
      cursor = tuple.parentConfig;
    }
    const result: DeltaHistory = {};
    for (const ch of channels) {
      const entry: DeltaHistory[string] = { writes: writesByChannel[ch]!.slice().reverse() };
      if (Object.prototype.hasOwnProperty.call(seeds, ch)) entry.seed = seeds[ch];
      result[ch] = entry;
    }
    return result;
  }

  /** A lean duration leaf read with its parent's channel values (the parent's own leaf chain included). */
  private async hydrate(tuple: CheckpointTuple, depth = 0): Promise<CheckpointTuple> {
    const meta = tuple.metadata as Record<string, unknown> | undefined;
    if (meta?.[LEAN_LEAF_KEY] !== "parent" || Object.keys(tuple.checkpoint.channel_values ?? {}).length > 0) return tuple;
    const threadId = String(tuple.config.configurable?.thread_id ?? "");
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    const parent = parentId && depth < 1000 ? await this.inner.getTuple(tuple.parentConfig!) : undefined;
    if (!parent) {
      throw new AppError("checkpoint_lineage_integrity", `Checkpoint lineage of thread ${threadId} is broken: duration leaf ${String(tuple.config.configurable?.checkpoint_id)} has no parent state`, {
        threadId,
      });
    }
    const values = { ...(await this.hydrate(parent, depth + 1)).checkpoint.channel_values };
    if (meta[MODE_MARKER_KEY] === "delta") for (const channel of DELTA_CHANNELS) delete values[channel];
    return { ...tuple, checkpoint: { ...tuple.checkpoint, channel_values: values } };
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.tablesReady();
    const tuple = await this.inner.getTuple(config);
    return tuple ? this.sortWrites(await this.hydrate(tuple)) : undefined;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.tablesReady();
    for await (const tuple of this.inner.list(config, options)) yield await this.sortWrites(await this.hydrate(tuple));
  }

  /**
   * Resolves once every put/putWrites started so far (and any chained after
   * them meanwhile) has landed or failed. An aborted graph run rejects before
   * its queued puts finish; on an asynchronous saver (PostgreSQL) reading the
   * head right then sees a stale one.
   */
  async settled(): Promise<void> {
    // LangGraph starts each queued put only after the previous one resolved
    // (a few promise turns later): settle, let pending callbacks run, and
    // check again until nothing new started.
    do {
      await Promise.allSettled([...this.inFlight]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    } while (this.inFlight.size > 0);
  }

  private track<T>(write: Promise<T>): Promise<T> {
    this.inFlight.add(write);
    const done = () => this.inFlight.delete(write);
    write.then(done, done);
    return write;
  }

  put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    return this.track(this.stampAndPut(config, checkpoint, metadata, newVersions));
  }

  private async stampAndPut(config: RunnableConfig, written: Checkpoint, metadata: CheckpointMetadata, writtenVersions: ChannelVersions): Promise<RunnableConfig> {
    // A state-only write (accessor.replace) leaves an idle head on every engine (idle-head.ts).
    const keep = config.configurable?.[IDLE_HEAD_KEY] as readonly string[] | undefined;
    const { checkpoint, newVersions } = keep
      ? clearForeignChannels({ checkpoint: written, newVersions: writtenVersions, keep, nextVersion: (v) => this.getNextVersion(v as number | undefined) })
      : { checkpoint: written, newVersions: writtenVersions };
    // The accessor injects the process mode into every config it hands out,
    // and LangGraph passes the configurable through to put.
    const injected = config.configurable?.[MODE_MARKER_KEY] as ChannelMode | undefined;
    if (injected !== undefined && injected !== this.mode) {
      throw new Error(`checkpoint written in ${String(injected)} mode through a ${this.mode}-mode saver`);
    }
    // Checkpoints written through the accessor also carry the digest of their
    // channel_versions (admission cleanup compares digests, not bodies).
    const stamped =
      injected === undefined
        ? metadata
        : ({
            ...metadata,
            ...(injected === "delta" ? { [MODE_MARKER_KEY]: "delta" } : {}),
            [VERSIONS_DIGEST_KEY]: channelVersionsDigest(checkpoint.channel_versions),
          } as CheckpointMetadata);
    await this.tablesReady();
    return this.inner.put(config, checkpoint, stamped, newVersions);
  }

  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    return this.track(this.tablesReady().then(() => this.inner.putWrites(config, writes, taskId)));
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.tablesReady();
    return this.inner.deleteThread(threadId);
  }
}

/** Waits for the stamping saver's writes in flight (other savers: nothing to wait for). */
export async function settleWrites(saver: BaseCheckpointSaver): Promise<void> {
  if (saver instanceof StampingSaver) await saver.settled();
}
