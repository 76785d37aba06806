// Runs @langchain/langgraph-checkpoint-validation against our saver wrapper
// in both modes. The suite uses Jest-style globals, so they are provided
// before it is imported.
//
// The suite hands the saver bare configs, while a delta process writes only
// through its accessor, which injects the mode into every config. The delta
// run therefore injects it too (every suite write takes the stamping path),
// and hands back metadata without the marker (and the channel_versions
// digest stamped with it) so the suite's round-trip
// comparisons see the caller's metadata; afterAll proves from the stored rows
// that the delta run really stamped and the full run did not.
import * as vitest from "vitest";
import "./jest-globals-test-support";
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ChannelVersions, Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { openSqliteCheckpoints } from "./sqlite-saver";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { MODE_MARKER_KEY, StampingSaver } from "./stamping-saver";
import type { ChannelMode } from "./mode";
import { VERSIONS_DIGEST_KEY } from "./versions-digest";

const { validate, deltaChannelHistoryTests } = await import("@langchain/langgraph-checkpoint-validation");

/** The caller's metadata: without the mode marker and the versions digest the saver stamps. */
function withoutMarker(tuple: CheckpointTuple): CheckpointTuple {
  if (!tuple.metadata || !(MODE_MARKER_KEY in tuple.metadata || VERSIONS_DIGEST_KEY in tuple.metadata)) return tuple;
  const { [MODE_MARKER_KEY]: _marker, [VERSIONS_DIGEST_KEY]: _digest, ...metadata } = tuple.metadata as Record<string, unknown>;
  void _marker;
  void _digest;
  return { ...tuple, metadata: metadata as CheckpointMetadata };
}

/** A delta process as its accessor drives the saver: the mode rides on every config. */
class DeltaProcessSaver extends StampingSaver {
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    // A config without `configurable` must still be rejected by the saver underneath.
    const injected = config.configurable ? { ...config, configurable: { ...config.configurable, [MODE_MARKER_KEY]: "delta" } } : config;
    return super.put(injected, checkpoint, metadata, newVersions);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const tuple = await super.getTuple(config);
    return tuple ? withoutMarker(tuple) : undefined;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    for await (const tuple of super.list(config, options)) yield withoutMarker(tuple);
  }
}

for (const mode of ["full", "delta"] as ChannelMode[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ckpt-validate-${mode}-`));
  let n = 0;
  const open = new Map<StampingSaver, Database.Database>();
  const stamped = { rows: 0, marked: 0 };
  vitest.describe(`StampingSaver (${mode}) passes the checkpoint validation suite`, () => {
    const initializer = {
      // The storage underneath is SqliteSaver: the suite's own skip list for it
      // applies ("SQLiteSaver doesn't store channel deltas" is an upstream
      // storage property the wrapper does not change).
      checkpointerName: "@langchain/langgraph-checkpoint-sqlite",
      createCheckpointer(): StampingSaver {
        // A fresh database file per instance keeps instances isolated.
        const sqlite = new Database(path.join(dir, `v${++n}.db`));
        const { saver, store } = openSqliteCheckpoints({ db: wrapSqliteDb({ sqlite, file: sqlite.name }, { reader: false }), mode });
        const wrapped = mode === "delta" ? new DeltaProcessSaver({ inner: saver.inner, setup: () => saver.setup(), store, mode }) : saver;
        open.set(wrapped, sqlite);
        return wrapped;
      },
      destroyCheckpointer(saver: StampingSaver) {
        const sqlite = open.get(saver);
        if (sqlite) {
          const row = sqlite
            .prepare(`SELECT count(*) AS rows, sum(CAST(metadata AS TEXT) LIKE '%"${MODE_MARKER_KEY}":"delta"%') AS marked FROM checkpoints`)
            .get() as { rows: number; marked: number | null };
          stamped.rows += row.rows;
          stamped.marked += row.marked ?? 0;
          sqlite.close();
        }
        open.delete(saver);
      },
      afterAll() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
    validate<StampingSaver>(initializer);
    // Not part of validate() in 1.1.1; delta replay depends on it.
    deltaChannelHistoryTests<StampingSaver>(initializer);
    vitest.afterAll(() => {
      // Every checkpoint the delta run wrote carries the marker; the full run's carry none.
      vitest.expect(stamped.rows).toBeGreaterThan(0);
      vitest.expect(stamped.marked).toBe(mode === "delta" ? stamped.rows : 0);
    });
  });
}
