// The SQLite engine's checkpoint pair on one workspace database: our
// stamping saver around SqliteSaver (its tables live in the workspace file)
// and the store over the same tables (reads outside a transaction on the
// database's read connection). Domain code receives both and never the
// connection.
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointTuple, PendingWrite } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { SqliteDb } from "@/server/db/sqlite-db";
import type { ChannelMode } from "./mode";
import { createSqliteCheckpointStore } from "./sqlite-store";
import { StampingSaver } from "./stamping-saver";
import type { CheckpointStore } from "./store";

/**
 * SqliteSaver statements run on the writer connection, where a transaction
 * of this process may be open across awaits (Clean up's judge-and-delete,
 * an analysis that rolls back): a saver write there would join it (and
 * vanish with an analysis' rollback), a saver read would see its
 * uncommitted rows. So each saver call takes its turn in the writer queue
 * (no transaction is open while it runs), or joins the transaction it is
 * called in. `list` reads its rows within its turn and yields them after.
 */
class QueuedSqliteSaver extends SqliteSaver {
  constructor(private readonly queue: SqliteDb) {
    super(queue.writer);
  }

  private turn<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.inTransaction() ? fn() : this.queue.exclusive(fn);
  }

  override getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.turn(() => super.getTuple(config));
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const tuples = await this.turn(async () => {
      const out: CheckpointTuple[] = [];
      for await (const tuple of super.list(config, options)) out.push(tuple);
      return out;
    });
    yield* tuples;
  }

  override put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    return this.turn(() => super.put(config, checkpoint, metadata));
  }

  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    return this.turn(() => super.putWrites(config, writes, taskId));
  }

  override deleteThread(threadId: string): Promise<void> {
    return this.turn(() => super.deleteThread(threadId));
  }
}

export type SqliteCheckpoints = { saver: StampingSaver; store: CheckpointStore };

/** Builds the saver and store and creates the saver's tables (idempotent). */
export function openSqliteCheckpoints(options: { db: SqliteDb; mode: ChannelMode }): SqliteCheckpoints {
  const inner = new QueuedSqliteSaver(options.db);
  const store = createSqliteCheckpointStore(options.db);
  // Protected upstream; every inner method calls it lazily anyway.
  const setup = () => (inner as unknown as { setup(): void }).setup();
  const saver = new StampingSaver({ inner, setup, store, mode: options.mode });
  saver.setup();
  return { saver, store };
}
