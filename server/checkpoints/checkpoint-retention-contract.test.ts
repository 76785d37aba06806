// The checkpoint retention contract suite (checkpoint-retention-contract.md).
// Every shape is built through the agent and run API, deleted, then verified
// four ways: latest resume, explicit checkpointId resume, branch from an
// older visible turn, orphan writes. Every case runs in full and delta mode,
// on both savers (SqliteSaver; PostgresSaver with TEST_POSTGRES_URL, where
// channel values live in checkpoint_blobs and every deletion must leave
// each surviving checkpoint's blobs in place and no unreachable blob).
import { afterEach, describe, expect, it } from "vitest";
import { isAppError } from "@/server/errors";
import { ERROR_STATUS } from "@/lib/api/error-codes";
import { startRun } from "./runs";
import { branch, readThreadHistory, readThreadState, regenerate } from "./threads";
import {
  ALL_OK,
  buildLeafSibling,
  buildLinear,
  captureExpect,
  MODES,
  openEngineHarness,
  verifyFourWays,
  type Harness,
} from "./cleanup/contract-support";
import { deleteCheckpointSafely, judgeDeletion } from "./cleanup/protected-set";
import { loadThreadGraph } from "./cleanup/thread-graph";
import { describeEachEngine } from "@/server/engines-test-support";
import { blobCount, blobReachability } from "./blob-test-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

function parentOf(harness: Harness, threadId: string, checkpointId: string): string {
  const node = loadThreadGraph(harness.store, threadId).nodes.get(checkpointId);
  if (!node?.parentId) throw new Error("no parent");
  return node.parentId;
}

/** The unsafe path a naive policy takes: both tables, no protected-set check. */
function forceDelete(harness: Harness, threadId: string, ids: string[]): void {
  harness.store.transaction(() => harness.store.deleteCheckpoints(threadId, ids));
}

describeEachEngine("checkpoint retention contract", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  /** PostgreSQL: every survivor's blobs are there and no blob is unreachable (SQLite has no blob table). */
  const expectBlobsConsistent = (threadId: string) => expect(blobReachability(db(), threadId)).toEqual({ missing: 0, unreachable: 0 });
  const messageIdsOf = async (threadId: string) => ((await h!.accessor.getState(threadId))?.values.messages ?? []).map((m) => String(m.id));

  it("[CRC-01] deleting an explicit resume target breaks resume", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    const target = shape.siblingLeafId;
    const pins = new Set([target]);
    // Otherwise a deletable leaf; the pin alone protects it.
    expect(judgeDeletion({ store: h.store, graph: loadThreadGraph(h.store, shape.threadId), checkpointId: target, pins })).toEqual({
      deletable: false,
      reasons: ["explicit_resume_target"],
    });
    expect(deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: target, pins }).deleted).toBe(false);
    const expectAfter = await captureExpect(h, shape.threadId, target);
    forceDelete(h, shape.threadId, [target]);
    expectBlobsConsistent(shape.threadId);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual({ ...ALL_OK, explicit: "not_found" });
  });

  it("[CRC-02] deleting a branch ancestor breaks lineage loudly (checkpoint_lineage_integrity)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const ancestor = parentOf(h, shape.threadId, shape.runs[1]!);
    const verdict = judgeDeletion({ store: h.store, graph: loadThreadGraph(h.store, shape.threadId), checkpointId: ancestor });
    expect(verdict).toMatchObject({ deletable: false });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("branch_ancestor");
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    forceDelete(h, shape.threadId, [ancestor]);
    expectBlobsConsistent(shape.threadId);
    const result = await verifyFourWays(h, shape.threadId, expectAfter);
    // The ancestor lies below the delta snapshot window of the head, so a
    // delta read would still see the whole conversation: the path check
    // fails it closed anyway, in both modes. A full-mode resume of the
    // older handle forks from an intact lineage and still works; delta
    // writes every resume onto the broken head, so it fails closed.
    const broken = "checkpoint_lineage_integrity";
    expect(result).toEqual({ ...ALL_OK, latest: broken, branch: broken, explicit: config.mode === "full" ? "ok" : broken });
  });

  it("[CRC-02] [CCM-14] a dangling parent fails closed on every read path", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 4);
    const [firstReply] = await (async () => {
      const s = await h!.accessor.getState(shape.threadId);
      return s!.values.messages.filter((m) => m.getType() === "ai" && !((m as { tool_calls?: unknown[] }).tool_calls?.length)).map((m) => String(m.id));
    })();
    // The head's parent goes: the head now points at a missing checkpoint.
    forceDelete(h, shape.threadId, [parentOf(h, shape.threadId, shape.headId)]);
    const before = h.store.threadTotals(shape.threadId).checkpoints;
    const deps = h.deps;
    const threadId = shape.threadId;
    async function code(fn: () => Promise<unknown>): Promise<string> {
      try {
        const value = await fn();
        return value && typeof value === "object" && "status" in value && value.status !== "success" ? `run_${String(value.status)}` : "ok";
      } catch (error) {
        if (!isAppError(error)) throw error;
        // The 409 names the thread.
        expect(error.message).toContain(threadId);
        expect(ERROR_STATUS[error.code]).toBe(409);
        return error.code;
      }
    }
    const outcomes = {
      state: await code(() => readThreadState(deps, threadId)),
      history: await code(() => readThreadHistory(deps, threadId, 10)),
      run: await code(() => startRun(deps, { threadId, content: "after the deletion" })),
      branch: await code(() => branch(deps, threadId, firstReply!)),
      regenerate: await code(() => regenerate(deps, threadId, firstReply!)),
    };
    // Full state would read complete without ancestors; both modes refuse
    // it rather than answer from a cut lineage.
    const broken = "checkpoint_lineage_integrity";
    expect(outcomes).toEqual({ state: broken, history: broken, run: broken, branch: broken, regenerate: broken });
    // Nothing was written by the refused run.
    expect(h.store.threadTotals(threadId).checkpoints).toBe(before);
  });

  it("[CCM-13] a parent cycle fails closed on reads and runs, naming the thread", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const root = [...loadThreadGraph(h.store, shape.threadId).nodes.values()].find((n) => n.parentId === null)!;
    h.run("UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_id = ?", [shape.headId, shape.threadId, root.id]);
    expect(h.store.pathBreak(shape.threadId)).toMatchObject({ kind: "cycle" });
    for (const read of [() => readThreadState(h!.deps, shape.threadId), () => startRun(h!.deps, { threadId: shape.threadId, content: "after" })]) {
      await expect(read()).rejects.toMatchObject({ code: "checkpoint_lineage_integrity", message: expect.stringContaining(shape.threadId) });
    }
  });

  it("[CRC-03] pending writes are retained state, not garbage", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const failed = await startRun(h.deps, {
      threadId: shape.threadId,
      content: "this run fails",
      beforeNode: (node) => {
        if (node === "reply") throw new Error("tool crashed");
      },
    });
    expect(failed.status).toBe("error");
    const graph = loadThreadGraph(h.store, shape.threadId);
    const head = graph.nodes.get(graph.headId!)!;
    expect(head.writesCount).toBeGreaterThan(0);
    const verdict = judgeDeletion({ store: h.store, graph, checkpointId: head.id });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("pending_writes");
    // Every checkpoint that has writes is protected by them.
    for (const node of graph.nodes.values()) {
      if (node.writesCount === 0) continue;
      const v = judgeDeletion({ store: h.store, graph, checkpointId: node.id });
      expect(v.deletable ? [] : v.reasons).toContain("pending_writes");
    }
    // Writes of surviving checkpoints are not orphans.
    expect(h.store.countOrphanWrites(shape.threadId)).toBe(0);
    // They are state: the failed task's error lives only there.
    const config0 = h.accessor.runConfig(shape.threadId);
    const before = await h.accessor.graph().getState(config0);
    expect(before.tasks[0]?.error).toBeDefined();
    h.run(`DELETE FROM ${h.writesTable} WHERE thread_id = ? AND checkpoint_id = ?`, [shape.threadId, head.id]);
    const after = await h.accessor.graph().getState(config0);
    expect(after.tasks[0]?.error).toBeUndefined();
  });

  it("[CRC-06] [CRC-08] leaf sibling branch deletion is safe (4 ways)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    const result = deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.siblingLeafId });
    expect(result).toEqual({ deleted: true, verdict: { deletable: true, form: "leaf_sibling" } });
    expectBlobsConsistent(shape.threadId);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-07] [CRC-08] trailing duration-only leaf deletion is safe (4 ways)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    const result = deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.headId });
    expect(result).toEqual({ deleted: true, verdict: { deletable: true, form: "trailing_duration_leaf" } });
    expectBlobsConsistent(shape.threadId);
    expect(await h.accessor.getState(shape.threadId, shape.headId)).toBeNull();
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-10] the shared-version case: a duration leaf names its parent's blobs, so deleting it keeps every blob", async () => {
    h = await openEngineHarness(db(), config);
    // Admission's path (the trailing leaf, no sweep) on one thread ...
    const shape = await buildLinear(h, 3);
    const before = blobCount(db(), shape.threadId);
    if (h.engine === "postgres") expect(before).toBeGreaterThan(0);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    expect(deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.headId }).deleted).toBe(true);
    expect(blobCount(db(), shape.threadId)).toBe(before);
    expectBlobsConsistent(shape.threadId);
    // ... general retention's (a whole-thread sweep from the survivors) on another.
    const other = await buildLinear(h, 2);
    const otherBlobs = blobCount(db(), other.threadId);
    const state = await messageIdsOf(other.threadId);
    forceDelete(h, other.threadId, [other.headId]);
    expect(blobCount(db(), other.threadId)).toBe(otherBlobs);
    expectBlobsConsistent(other.threadId);
    expect(await messageIdsOf(other.threadId)).toEqual(state);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });
}));
