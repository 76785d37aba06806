import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine, type EngineDb } from "@/server/engines-test-support";
import type { CheckpointAccessor } from "./accessor";
import { isDurationOnly } from "./durations";
import type { ModeConfig } from "./mode";
import { startRun, type RunDeps } from "./runs";
import { createThread } from "./threads";
import { openEngineHarness, type Harness } from "./cleanup/contract-support";
import { DELTA, FULL } from "./test-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

/** A saver + accessor on the test's database (SQLite file or PostgreSQL database); the deps of its first opening. */
async function open(db: EngineDb, config: ModeConfig) {
  h = await openEngineHarness(db, config);
  return { accessor: h.accessor, saver: h.accessor.saver, deps: h.deps };
}

/** A fresh saver + accessor on the same database (a "reload"). */
function reload(config: ModeConfig): CheckpointAccessor {
  h!.reopen(config);
  return h!.accessor;
}

async function edges(threadId: string): Promise<Map<string, string[]>> {
  const rows = await h!.all<{ id: string; parent: string | null }>("select checkpoint_id id, parent_checkpoint_id parent from checkpoints where thread_id = ?", [threadId]);
  const children = new Map<string, string[]>();
  for (const r of rows) if (r.parent) children.set(r.parent, [...(children.get(r.parent) ?? []), r.id]);
  return children;
}

/** A thread with one finished run ("q0"). */
async function threadAfterOneRun(db: EngineDb, config: ModeConfig) {
  const opened = await open(db, config);
  const deps = opened.deps;
  const { threadId } = await createThread(deps);
  const first = await startRun(deps, { threadId, content: "q0" });
  return { ...opened, deps, threadId, first };
}

/** Starts a run with rollback on cancel and cancels it as the reply node begins. */
function cancelAtReply(deps: RunDeps, threadId: string, content: string) {
  const controller = new AbortController();
  return startRun(deps, { threadId, content, signal: controller.signal, rollbackOnCancel: true, beforeNode: (node) => node === "reply" && controller.abort() });
}

async function messageIds(accessor: CheckpointAccessor, threadId: string): Promise<string[]> {
  return (await accessor.getState(threadId))!.values.messages.map((m) => String(m.id));
}

describeEachEngine("agent runs", ({ db }) => describe("runs", () => {
  it("a successful run appends a lean duration-only checkpoint parented on the head, with the head's channel_versions; the run and its handle are recorded beside it", async () => {
    const { accessor, saver, deps } = await open(db(), FULL);
    const { threadId } = await createThread(deps);
    const results = [];
    for (let i = 0; i < 3; i += 1) results.push(await startRun(deps, { threadId, content: `q${i}` }));
    expect(results.every((r) => r.status === "success")).toBe(true);
    const leaf = await saver.getTuple({ configurable: { thread_id: threadId } });
    // The run hands out the state checkpoint the leaf clones, never the leaf.
    expect(leaf!.parentConfig?.configurable?.checkpoint_id).toBe(results[2]!.checkpointId);
    const meta = leaf!.metadata as Record<string, unknown>;
    expect(isDurationOnly(meta)).toBe(true);
    expect(meta.source).toBe("update");
    expect((meta.writes as Record<string, { run_id: string; duration_ms: number }>).runtime_run_duration?.run_id).toBe(results[2]!.runId);
    // The run history no longer rides on the leaf: it does not grow with the thread.
    expect(meta.run_durations).toBeUndefined();
    expect(meta.run_message_ids).toBeUndefined();
    expect(meta.run_order).toBeUndefined();
    const parent = await saver.getTuple(leaf!.parentConfig!);
    expect(isDurationOnly(parent!.metadata)).toBe(false);
    expect(leaf!.checkpoint.channel_versions).toEqual(parent!.checkpoint.channel_versions);
    // Stored without values, read with its parent's.
    expect(leaf!.checkpoint.channel_values).toEqual(parent!.checkpoint.channel_values);
    if (h!.engine === "sqlite") {
      const [row] = await h!.all<{ body: string }>("select CAST(checkpoint AS TEXT) AS body from checkpoints where thread_id = ? and checkpoint_id = ?", [threadId, String(leaf!.config.configurable?.checkpoint_id)]);
      expect((JSON.parse(row!.body) as { channel_values: object }).channel_values).toEqual({});
    }
    const runs = await h!.store.listRuns(threadId);
    expect(runs.map((r) => [r.runId, r.status, r.handleId])).toEqual(results.map((r) => [r.runId, "success", r.checkpointId]));
    expect(runs[2]!.leafId).toBe(String(leaf!.config.configurable?.checkpoint_id));
    expect(runs[2]!.leafDigest).toBe(runs[2]!.handleDigest);
    expect(runs[2]!.messageIds.length).toBeGreaterThanOrEqual(4);
    // Every run minted new message ids.
    const ids = await messageIds(accessor, threadId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("runs on one thread are serialized by the thread lock", async () => {
    const { accessor, deps } = await open(db(), DELTA);
    const { threadId } = await createThread(deps);
    const results = await Promise.all([0, 1, 2].map((i) => startRun(deps, { threadId, content: `q${i}` })));
    expect(results.map((r) => r.status)).toEqual(["success", "success", "success"]);
    const types = (await accessor.getState(threadId))!.values.messages.map((m) => m.getType()).join(",");
    expect(types).toBe(Array(3).fill("human,ai,tool,ai").join(","));
  });

  for (const config of [FULL, DELTA]) {
    it(`[CCM-15] resuming an older checkpoint: ${config.mode === "delta" ? "delta linearizes onto the head, never forks" : "full forks"}`, async () => {
      const { accessor, deps, threadId, first } = await threadAfterOneRun(db(), config);
      await startRun(deps, { threadId, content: "q1" });
      const afterFirst = (await accessor.getState(threadId, first.checkpointId!))!.values.messages.map((m) => String(m.id));
      const resumed = await startRun(deps, { threadId, content: "q1 again", checkpointId: first.checkpointId! });
      expect(resumed.status).toBe("success");
      const ids = await messageIds(accessor, threadId);
      expect(ids.slice(0, afterFirst.length)).toEqual(afterFirst);
      expect(ids).toHaveLength(afterFirst.length + 4);
      const forks = [...(await edges(threadId)).values()].filter((c) => c.length > 1);
      if (config.mode === "delta") expect(forks).toEqual([]);
      else expect(forks.length).toBeGreaterThan(0);
      // A reload sees the same conversation.
      expect(await messageIds(reload(config), threadId)).toEqual(ids);
    });

    it(`[CCM-16] cancel with rollback restores the captured pre-run state (${config.mode})`, async () => {
      const { accessor, deps, threadId } = await threadAfterOneRun(db(), config);
      const before = (await accessor.getState(threadId))!.values;
      const result = await cancelAtReply(deps, threadId, "q1");
      expect(result.status).toBe("cancelled");
      const reopened = reload(config);
      const after = (await reopened.getState(threadId))!;
      expect(after.values.messages.map((m) => m.id)).toEqual(before.messages.map((m) => m.id));
      expect(after.values.notes).toEqual(before.notes);
      // Idle on both engines: PostgresSaver resolves every versioned channel
      // from its blobs, so a restore that kept the cancelled run's
      // "branch:to:reply" version brought its trigger back (next: ["reply"]).
      expect(after.next).toEqual([]);
      if (config.mode === "delta") expect([...(await edges(threadId)).values()].filter((c) => c.length > 1)).toEqual([]);
      // The thread continues normally afterwards.
      expect((await startRun(deps, { threadId, content: "q2" })).status).toBe("success");
    });
  }

  it("[CCM-16] rollback reattaches only the captured pre-run pending writes", async () => {
    const { saver, deps, threadId } = await threadAfterOneRun(db(), DELTA);
    const head = await saver.getTuple({ configurable: { thread_id: threadId } });
    await saver.putWrites(head!.config, [["pending_marker", "captured"]], "00000000-0000-0000-0000-00000000beef");
    const result = await cancelAtReply(deps, threadId, "q1");
    expect(result.status).toBe("cancelled");
    const restored = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_id: result.checkpointId! } });
    expect(restored!.pendingWrites).toEqual([["00000000-0000-0000-0000-00000000beef", "pending_marker", "captured"]]);
  });

  it("[CCM-16] a failed rollback capture disables rollback instead of restoring partial state", async () => {
    const { accessor, deps, threadId } = await threadAfterOneRun(db(), DELTA);
    const before = await messageIds(accessor, threadId);
    let reads = 0;
    const flaky: CheckpointAccessor = {
      ...accessor,
      getState: async (...args) => {
        reads += 1;
        if (reads === 1) throw new Error("storage hiccup");
        return accessor.getState(...args);
      },
    };
    const result = await cancelAtReply({ ...deps, accessor: flaky }, threadId, "q1");
    expect(result.status).toBe("cancelled");
    const after = await messageIds(accessor, threadId);
    // Nothing was restored: the cancelled run's partial messages remain.
    expect(after.length).toBeGreaterThan(before.length);
  });
}));
