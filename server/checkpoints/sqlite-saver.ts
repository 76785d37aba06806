// The SQLite engine's checkpoint pair on one workspace connection: our
// stamping saver around SqliteSaver (its tables live in the workspace file)
// and the store over the same tables. Domain code receives both and never
// the connection.
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Sqlite } from "@/server/db/client";
import type { ChannelMode } from "./mode";
import { createSqliteCheckpointStore } from "./sqlite-store";
import { StampingSaver } from "./stamping-saver";
import type { CheckpointStore } from "./store";

export type SqliteCheckpoints = { saver: StampingSaver; store: CheckpointStore };

/** Builds the saver and store and creates the saver's tables (idempotent). */
export function openSqliteCheckpoints(options: { sqlite: Sqlite; mode: ChannelMode }): SqliteCheckpoints {
  const inner = new SqliteSaver(options.sqlite);
  const store = createSqliteCheckpointStore(options.sqlite);
  // Protected upstream; every inner method calls it lazily anyway.
  const setup = () => (inner as unknown as { setup(): void }).setup();
  const saver = new StampingSaver({ inner, setup, store, mode: options.mode });
  saver.setup();
  return { saver, store };
}
