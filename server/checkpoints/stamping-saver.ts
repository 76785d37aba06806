// Our one saver wrapper around @langchain/langgraph-checkpoint-sqlite.
// - LangGraph.js 1.7.3 builds checkpoint metadata from its own fields only
//   (config.metadata is not copied), so the delta marker is stamped here on
//   every checkpoint a delta process writes through its accessor (which
//   injects the mode into every config). Writes without an injected mode
//   (the upstream validation suite) pass through unchanged.
// - SqliteSaver 1.0.4 reads pending writes with json_group_array and no
//   ORDER BY, but delta replay requires them in (task_id, idx) order; reads
//   with more than one write are re-read in that order here.
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
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type Database from "better-sqlite3";
import type { ChannelMode } from "./mode";

export const MODE_MARKER_KEY = "checkpoint_channel_mode";

type WriteRow = { task_id: string; channel: string; type: string | null; value: string | null };

export type StampingSaverOptions = {
  /** The workspace connection: checkpoints live in the same database file. */
  sqlite: Database.Database;
  /** The process mode: a delta process stamps every checkpoint it writes. */
  mode: ChannelMode;
};

export class StampingSqliteSaver extends BaseCheckpointSaver {
  readonly inner: SqliteSaver;
  readonly mode: ChannelMode;
  readonly sqlite: Database.Database;
  private orderedWrites: Database.Statement | null = null;
  private latestMeta: Database.Statement | null = null;

  constructor(options: StampingSaverOptions) {
    const inner = new SqliteSaver(options.sqlite);
    super(inner.serde);
    this.inner = inner;
    this.mode = options.mode;
    this.sqlite = options.sqlite;
  }

  /** Creates the saver's own tables (idempotent). */
  setup(): void {
    // Protected upstream; every inner method calls it lazily anyway.
    (this.inner as unknown as { setup(): void }).setup();
  }

  private async sortWrites(tuple: CheckpointTuple): Promise<CheckpointTuple> {
    const writes = tuple.pendingWrites;
    if (!writes || writes.length < 2) return tuple;
    const c = tuple.config.configurable ?? {};
    this.orderedWrites ??= this.sqlite.prepare(
      `SELECT task_id, channel, type, CAST(value AS TEXT) AS value FROM writes
       WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
       ORDER BY task_id, idx`,
    );
    const rows = this.orderedWrites.all(c.thread_id, c.checkpoint_ns ?? "", c.checkpoint_id) as WriteRow[];
    const ordered: CheckpointPendingWrite[] = await Promise.all(
      rows.map(async (row) => [row.task_id, row.channel, await this.serde.loadsTyped(row.type ?? "json", row.value ?? "")] as CheckpointPendingWrite),
    );
    return { ...tuple, pendingWrites: ordered };
  }

  /**
   * Metadata of the thread's latest root-namespace checkpoint without
   * deserializing its channel values (the compatibility gate needs only this).
   */
  async latestMetadata(threadId: string): Promise<CheckpointMetadata | undefined> {
    this.setup();
    this.latestMeta ??= this.sqlite.prepare(
      `SELECT type, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
    );
    const row = this.latestMeta.get(threadId) as { type: string | null; metadata: Uint8Array | string } | undefined;
    if (!row) return undefined;
    return (await this.serde.loadsTyped(row.type ?? "json", row.metadata)) as CheckpointMetadata;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const tuple = await this.inner.getTuple(config);
    return tuple ? this.sortWrites(tuple) : undefined;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    for await (const tuple of this.inner.list(config, options)) yield await this.sortWrites(tuple);
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    // The accessor injects the process mode into every config it hands out,
    // and LangGraph passes the configurable through to put.
    const injected = config.configurable?.[MODE_MARKER_KEY] as ChannelMode | undefined;
    if (injected !== undefined && injected !== this.mode) {
      throw new Error(`checkpoint written in ${String(injected)} mode through a ${this.mode}-mode saver`);
    }
    const stamped = injected === "delta" ? ({ ...metadata, [MODE_MARKER_KEY]: "delta" } as CheckpointMetadata) : metadata;
    void newVersions; // SqliteSaver stores whole checkpoints; versions are inside.
    return this.inner.put(config, checkpoint, stamped);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    return this.inner.putWrites(config, writes, taskId);
  }

  async deleteThread(threadId: string): Promise<void> {
    return this.inner.deleteThread(threadId);
  }
}
