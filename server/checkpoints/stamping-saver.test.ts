import { afterEach, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { agentGraph, SCRIPT_KEY } from "./agent";
import { checkpointMode } from "./detect";
import { openSqliteCheckpoints } from "./sqlite-saver";
import { wrapSqliteDb } from "@/server/db/sqlite-db";
import { MODE_MARKER_KEY } from "./stamping-saver";
import { createCheckpointTestEnv, sequentialIds, type CheckpointTestEnv } from "./test-support";

let env: CheckpointTestEnv;
beforeEach(() => {
  env = createCheckpointTestEnv();
});
afterEach(() => env.close());

function metadataRows(sqlite: Database.Database, threadId: string): Record<string, unknown>[] {
  return (sqlite.prepare("select CAST(metadata AS TEXT) m from checkpoints where thread_id = ? order by checkpoint_id").all(threadId) as { m: string }[]).map(
    (r) => JSON.parse(r.m) as Record<string, unknown>,
  );
}

describe("stamping saver", () => {
  it("LangGraph.js does not copy config.metadata into checkpoint metadata (why the wrapper exists)", async () => {
    const sqlite = new Database(env.db.file);
    try {
      const raw = new SqliteSaver(sqlite);
      const graph = agentGraph({ mode: "delta", snapshotFrequency: 10 }, raw);
      const newId = sequentialIds();
      await graph.invoke(
        { messages: [new HumanMessage({ id: newId(), content: "hi" })] },
        { configurable: { thread_id: "raw", [SCRIPT_KEY]: { runId: "r1", newId, toolPayloadBytes: 0 } }, metadata: { [MODE_MARKER_KEY]: "delta" } },
      );
      const rows = metadataRows(sqlite, "raw");
      expect(rows.length).toBeGreaterThan(0);
      for (const m of rows) expect(m[MODE_MARKER_KEY]).toBeUndefined();
    } finally {
      sqlite.close();
    }
  });

  it("[CCM-05] every checkpoint a delta process writes carries the marker; full writes none (absence = full)", async () => {
    for (const mode of ["delta", "full"] as const) {
      const { accessor, sqlite } = env.open({ mode, snapshotFrequency: 2 });
      const newId = sequentialIds(mode);
      await accessor.replace(`t-${mode}`, {});
      for (let i = 0; i < 3; i += 1) {
        await accessor.graph().invoke(
          { messages: [new HumanMessage({ id: newId(), content: `q${i}` })] },
          { configurable: { ...accessor.runConfig(`t-${mode}`).configurable, [SCRIPT_KEY]: { runId: `r${i}`, newId, toolPayloadBytes: 16 } } },
        );
      }
      const rows = metadataRows(sqlite, `t-${mode}`);
      expect(rows.length).toBeGreaterThan(8);
      for (const m of rows) {
        if (mode === "delta") expect(m[MODE_MARKER_KEY]).toBe("delta");
        else expect(m[MODE_MARKER_KEY]).toBeUndefined();
        expect(checkpointMode(m)).toBe(mode);
      }
      if (mode === "delta") {
        // Snapshot checkpoints can lack the counters: the marker still says delta.
        expect(rows.some((m) => m.counters_since_delta_snapshot === undefined)).toBe(true);
      }
    }
  });

  it("pending writes come back in (task_id, idx) order even when storage returns them unordered", async () => {
    const sqlite = new Database(env.db.file);
    try {
      // A writes table without the composite key: SqliteSaver's unordered
      // json_group_array then follows insertion order.
      sqlite.exec(`CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB)`);
      const { saver } = openSqliteCheckpoints({ db: wrapSqliteDb({ sqlite, file: sqlite.name }, { reader: false }), mode: "delta" });
      const raw = new SqliteSaver(sqlite);
      const cp = { v: 4, id: "1f000000-0000-6000-8000-000000000001", ts: "2026-01-01T00:00:00.000Z", channel_values: {}, channel_versions: {}, versions_seen: {} };
      const config = await saver.put({ configurable: { thread_id: "w", checkpoint_ns: "" } }, cp, { source: "loop", step: 0, parents: {} }, {});
      await saver.putWrites(config, [["messages", "b0"], ["messages", "b1"]], "task-b");
      await saver.putWrites(config, [["messages", "a0"], ["messages", "a1"]], "task-a");
      const rawOrder = (await raw.getTuple(config))!.pendingWrites!.map((w) => w[2]);
      expect(rawOrder).toEqual(["b0", "b1", "a0", "a1"]);
      const ordered = (await saver.getTuple(config))!.pendingWrites!.map((w) => w[2]);
      expect(ordered).toEqual(["a0", "a1", "b0", "b1"]);
      const listed = [];
      for await (const t of saver.list({ configurable: { thread_id: "w" } })) listed.push(t.pendingWrites!.map((w) => w[2]));
      expect(listed).toEqual([["a0", "a1", "b0", "b1"]]);
    } finally {
      sqlite.close();
    }
  });
});

describe("delta detection", () => {
  it("[CCM-08] counters_since_delta_snapshot.messages means delta; an explicit marker takes precedence", () => {
    expect(checkpointMode({ counters_since_delta_snapshot: { messages: [1, 1] } })).toBe("delta");
    expect(checkpointMode({ counters_since_delta_snapshot: { other: [1, 1] } })).toBe("full");
    expect(checkpointMode({ [MODE_MARKER_KEY]: "full", counters_since_delta_snapshot: { messages: [1, 1] } })).toBe("full");
    expect(checkpointMode({ [MODE_MARKER_KEY]: "delta" })).toBe("delta");
    expect(checkpointMode({})).toBe("full");
    expect(checkpointMode(undefined)).toBe("full");
  });
});
