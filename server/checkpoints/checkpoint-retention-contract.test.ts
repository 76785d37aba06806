// The checkpoint retention contract suite (checkpoint-retention-contract.md).
// Every shape the spec names (the five protected ones: explicit resume
// target, branch ancestor, pending writes, duration-only chain link, newest;
// the two safe forms: leaf sibling, trailing duration leaf) is built through
// the agent and run API, deleted (the safe path first: it refuses a
// protected shape; then the naive joint delete a policy without the
// protected set would run, or the safe form), then verified four ways:
// latest resume, explicit resume from a checkpointId a client holds (a run
// handle), branch from an older visible turn, and orphans (writes rows, and
// on PostgreSQL blobs missing for a survivor or reached by none). Every case
// runs in full and delta mode, on both savers (SqliteSaver; PostgresSaver
// with TEST_POSTGRES_URL, where channel values live in checkpoint_blobs).
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
import { deleteCheckpointSafely, graftAndDelete, judgeDeletion } from "./cleanup/protected-set";
import { cleanupAtAdmission } from "./cleanup/admission-cleanup";
import { DAY_MS, DEFAULT_HANDLE_TTL_DAYS } from "./handles";
import { handlePolicy } from "./runs";
import { advanceClock } from "./test-support";
import { loadThreadGraph } from "./cleanup/thread-graph";
import { describeEachEngine } from "@/server/engines-test-support";
import { blobCount, blobReachability } from "./blob-test-support";
import type { RetentionResult } from "@/lib/checkpoints/api";
import { createEventBus } from "@/server/events/bus";
import { createLogger } from "@/server/log";
import { createMaintenanceGuard } from "@/server/maintenance/guard";
import { createCheckpointQueue, startOperation, type OperationDeps } from "./cleanup/operations";
import { createRunHistoryCache } from "./cleanup/run-history";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

async function parentOf(harness: Harness, threadId: string, checkpointId: string): Promise<string> {
  const node = (await loadThreadGraph(harness.store, threadId)).nodes.get(checkpointId);
  if (!node?.parentId) throw new Error("no parent");
  return node.parentId;
}

/** The unsafe path a naive policy takes: both tables, no protected-set check. */
async function forceDelete(harness: Harness, threadId: string, ids: string[]): Promise<void> {
  await harness.store.transaction(() => harness.store.deleteCheckpoints(threadId, ids));
}

describeEachEngine("checkpoint retention contract", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  /** PostgreSQL: every survivor's blobs are there and no blob is unreachable (SQLite has no blob table). */
  const expectBlobsConsistent = async (threadId: string) => expect(await blobReachability(db(), threadId)).toEqual({ missing: 0, unreachable: 0 });
  const messageIdsOf = async (threadId: string) => ((await h!.accessor.getState(threadId))?.values.messages ?? []).map((m) => String(m.id));

  it("[CRC-01] deleting an explicit resume target breaks resume: a run handle off the path is protected until its time to live", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    // The abandoned branch's tip: run 3's handle, childless once its leaf went (a safe leaf-sibling deletion).
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.siblingLeafId })).deleted).toBe(true);
    const target = shape.runs[2]!;
    const judge = async () => judgeDeletion({ store: h!.store, graph: await loadThreadGraph(h!.store, shape.threadId), checkpointId: target, handles: handlePolicy(h!.deps) });
    // Otherwise a deletable leaf sibling: the handle alone protects it (and a pin would too).
    expect(await judge()).toEqual({ deletable: false, reasons: ["run_handle"] });
    expect(await judgeDeletion({ store: h.store, graph: await loadThreadGraph(h.store, shape.threadId), checkpointId: target, pins: new Set([target]), handles: handlePolicy(h.deps) })).toEqual({
      deletable: false,
      reasons: ["explicit_resume_target", "run_handle"],
    });
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: target, handles: handlePolicy(h.deps) })).deleted).toBe(false);
    const expectAfter = await captureExpect(h, shape.threadId, target);
    // A client resumes it while it lasts (on a second thread built the same way, so this one keeps the shape).
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
    const other = await buildLeafSibling(h);
    expect((await deleteCheckpointSafely({ store: h.store, threadId: other.threadId, checkpointId: other.siblingLeafId })).deleted).toBe(true);
    const otherExpect = await captureExpect(h, other.threadId, other.runs[2]!);
    // The naive policy deletes it anyway: the explicit resume breaks.
    await forceDelete(h, other.threadId, [other.runs[2]!]);
    await expectBlobsConsistent(other.threadId);
    expect(await verifyFourWays(h, other.threadId, otherExpect)).toEqual({ ...ALL_OK, explicit: "not_found" });
    // Past the time to live the protection ends: retention may reclaim an expired handle, which then answers 410.
    const third = await buildLeafSibling(h);
    expect((await deleteCheckpointSafely({ store: h.store, threadId: third.threadId, checkpointId: third.siblingLeafId })).deleted).toBe(true);
    const thirdExpect = await captureExpect(h, third.threadId, third.runs[2]!);
    advanceClock(h.deps, (DEFAULT_HANDLE_TTL_DAYS + 1) * DAY_MS);
    expect(await deleteCheckpointSafely({ store: h.store, threadId: third.threadId, checkpointId: third.runs[2]!, handles: handlePolicy(h.deps) })).toEqual({
      deleted: true,
      verdict: { deletable: true, form: "leaf_sibling" },
    });
    await expectBlobsConsistent(third.threadId);
    expect(await verifyFourWays(h, third.threadId, thirdExpect)).toEqual({ ...ALL_OK, explicit: "checkpoint_handle_expired" });
  });

  it("[CRC-02] deleting a branch ancestor breaks lineage loudly (checkpoint_lineage_integrity)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const ancestor = await parentOf(h, shape.threadId, shape.runs[1]!);
    const verdict = await judgeDeletion({ store: h.store, graph: await loadThreadGraph(h.store, shape.threadId), checkpointId: ancestor });
    expect(verdict).toMatchObject({ deletable: false });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("branch_ancestor");
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    await forceDelete(h, shape.threadId, [ancestor]);
    await expectBlobsConsistent(shape.threadId);
    const result = await verifyFourWays(h, shape.threadId, expectAfter);
    // The ancestor lies below the delta snapshot window of the head, so a
    // delta read would still see the whole conversation: the path check
    // fails it closed anyway, in both modes. A full-mode resume of the
    // older handle forks from an intact lineage and still works; delta
    // writes every resume onto the broken head, so it fails closed.
    const broken = "checkpoint_lineage_integrity";
    expect(result).toEqual({ ...ALL_OK, latest: broken, branch: broken, explicit: config.mode === "full" ? "ok" : broken });
  });

  it("[CRC-02] [CCM-13] a dangling parent fails closed on every read path", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 4);
    const [firstReply] = await (async () => {
      const s = await h!.accessor.getState(shape.threadId);
      return s!.values.messages.filter((m) => m.getType() === "ai" && !((m as { tool_calls?: unknown[] }).tool_calls?.length)).map((m) => String(m.id));
    })();
    // The head's parent goes: the head now points at a missing checkpoint.
    await forceDelete(h, shape.threadId, [await parentOf(h, shape.threadId, shape.headId)]);
    const before = (await h.store.threadTotals(shape.threadId)).checkpoints;
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
    expect((await h.store.threadTotals(threadId)).checkpoints).toBe(before);
  });

  it("[CCM-13] a parent cycle fails closed on reads and runs, naming the thread", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    const root = [...(await loadThreadGraph(h.store, shape.threadId)).nodes.values()].find((n) => n.parentId === null)!;
    await h.run("UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_id = ?", [shape.headId, shape.threadId, root.id]);
    expect(await h.store.pathBreak(shape.threadId)).toMatchObject({ kind: "cycle" });
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
    const graph = await loadThreadGraph(h.store, shape.threadId);
    const head = graph.nodes.get(graph.headId!)!;
    expect(head.writesCount).toBeGreaterThan(0);
    const verdict = await judgeDeletion({ store: h.store, graph, checkpointId: head.id });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("pending_writes");
    // Every checkpoint that has writes is protected by them.
    for (const node of graph.nodes.values()) {
      if (node.writesCount === 0) continue;
      const v = await judgeDeletion({ store: h.store, graph, checkpointId: node.id });
      expect(v.deletable ? [] : v.reasons).toContain("pending_writes");
    }
    // Writes of surviving checkpoints are not orphans.
    expect(await h.store.countOrphanWrites(shape.threadId)).toBe(0);
    // They are state: the failed task's error lives only there.
    const config0 = h.accessor.runConfig(shape.threadId);
    const before = await h.accessor.graph().getState(config0);
    expect(before.tasks[0]?.error).toBeDefined();
    const expectAfter = await captureExpect(h, shape.threadId, failed.checkpointId!);
    // The failed run's handle is the checkpoint holding those writes.
    expect(failed.checkpointId).toBe(head.id);
    // The naive policy treats them as garbage and deletes them.
    await h.run(`DELETE FROM ${h.writesTable} WHERE thread_id = ? AND checkpoint_id = ?`, [shape.threadId, head.id]);
    const after = await h.accessor.graph().getState(config0);
    expect(after.tasks[0]?.error).toBeUndefined();
    // The conversation itself reads on: the failure record is what was lost.
    await expectBlobsConsistent(shape.threadId);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-04] a duration-only chain link is protected; deleting it without the graft breaks lineage, grafting it onto the grandparent in the same change is safe (4 ways)", async () => {
    h = await openEngineHarness(db(), config);
    // Without admission every run's duration leaf becomes the next run's parent: a link.
    const shape = await buildLinear(h, 3);
    const link = shape.leaves[0]!;
    const graph = await loadThreadGraph(h.store, shape.threadId);
    const verdict = await judgeDeletion({ store: h.store, graph, checkpointId: link, handles: handlePolicy(h.deps) });
    expect(verdict.deletable ? [] : verdict.reasons).toEqual(expect.arrayContaining(["duration_chain_link", "branch_ancestor"]));
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: link })).deleted).toBe(false);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[1]!);
    const other = await buildLinear(h, 3);
    const otherExpect = await captureExpect(h, other.threadId, other.runs[1]!);
    // The naive delete leaves run 2's input pointing at a missing parent: every path through it is cut, run 2's handle's too.
    await forceDelete(h, other.threadId, [other.leaves[0]!]);
    await expectBlobsConsistent(other.threadId);
    const broken = "checkpoint_lineage_integrity";
    expect(await verifyFourWays(h, other.threadId, otherExpect)).toEqual({ ...ALL_OK, latest: broken, branch: broken, explicit: broken });
    // The graft re-parents the link's child onto the link's parent in the same transaction.
    const child = [...graph.nodes.values()].find((n) => n.parentId === link)!.id;
    expect(await graftAndDelete({ store: h.store, threadId: shape.threadId, checkpointId: link })).toMatchObject({ deleted: true });
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.get(child)!.parentId).toBe(shape.runs[0]);
    await expectBlobsConsistent(shape.threadId);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-05] the newest checkpoint stays addressable: the safe path refuses it, deleting it loses the latest state", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    // Admission took the trailing leaf: the head is run 2's state, its handle.
    expect((await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).action).toBe("deleted");
    const headId = (await loadThreadGraph(h.store, shape.threadId)).headId!;
    expect(headId).toBe(shape.runs[1]);
    const verdict = await judgeDeletion({ store: h.store, graph: await loadThreadGraph(h.store, shape.threadId), checkpointId: headId });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("newest");
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: headId })).deleted).toBe(false);
    const expectAfter = await captureExpect(h, shape.threadId, headId);
    await forceDelete(h, shape.threadId, [headId]);
    await expectBlobsConsistent(shape.threadId);
    // The thread now continues from a mid-run step: run 2's answer is gone, and so is its handle.
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual({ ...ALL_OK, latest: "wrong_state", explicit: "not_found" });
  });

  it("[CRC-06] [CRC-08] leaf sibling branch deletion is safe (4 ways, the explicit resume from the handle on the sibling's surviving parent)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    // The sibling leaf's parent is run 3's handle, off the path: the client may still hold it.
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.get(shape.siblingLeafId)!.parentId).toBe(shape.runs[2]);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[2]!);
    const result = await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.siblingLeafId });
    expect(result).toEqual({ deleted: true, verdict: { deletable: true, form: "leaf_sibling" } });
    await expectBlobsConsistent(shape.threadId);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-07] [CRC-08] trailing duration-only leaf deletion is safe (4 ways)", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    const result = await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.headId });
    expect(result).toEqual({ deleted: true, verdict: { deletable: true, form: "trailing_duration_leaf" } });
    await expectBlobsConsistent(shape.threadId);
    expect(await h.accessor.getState(shape.threadId, shape.headId)).toBeNull();
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-10] the shared-version case: a duration leaf names its parent's blobs, so deleting it keeps every blob", async () => {
    h = await openEngineHarness(db(), config);
    // Admission's path (the trailing leaf, no sweep) on one thread ...
    const shape = await buildLinear(h, 3);
    const before = await blobCount(db(), shape.threadId);
    if (h.engine === "postgres") expect(before).toBeGreaterThan(0);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[0]!);
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.headId })).deleted).toBe(true);
    expect(await blobCount(db(), shape.threadId)).toBe(before);
    await expectBlobsConsistent(shape.threadId);
    // ... general retention's (a whole-thread sweep from the survivors) on another.
    const other = await buildLinear(h, 2);
    const otherBlobs = await blobCount(db(), other.threadId);
    const state = await messageIdsOf(other.threadId);
    await forceDelete(h, other.threadId, [other.headId]);
    expect(await blobCount(db(), other.threadId)).toBe(otherBlobs);
    await expectBlobsConsistent(other.threadId);
    expect(await messageIdsOf(other.threadId)).toEqual(state);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-08] [CRC-09] the scheduled path: the daily cleanup, stopped by the window after one thread and continued after it, removes only safe forms (every shape verifies 4 ways, every run handle resumes)", async () => {
    h = await openEngineHarness(db(), config);
    const sibling = await buildLeafSibling(h);
    const linear = await buildLinear(h, 3);
    const shapes = [
      { shape: sibling, expected: await captureExpect(h, sibling.threadId, sibling.runs[2]!) },
      { shape: linear, expected: await captureExpect(h, linear.threadId, linear.runs[0]!) },
    ];
    const jobs = createCheckpointQueue();
    const deps: OperationDeps = {
      store: h.store,
      clock: h.deps.clock,
      log: createLogger({ level: "silent" }),
      guard: createMaintenanceGuard(),
      bus: createEventBus(),
      locks: h.deps.locks,
      cache: createRunHistoryCache(),
      handleTtlDays: DEFAULT_HANDLE_TTL_DAYS,
      jobs,
      wait: async () => undefined,
      newId: h.newId,
    };
    const results: Array<{ result: RetentionResult; last: string | null }> = [];
    let asked = 0;
    // The window closes after the first thread: that slice ends partial.
    startOperation(deps, "cleanup", { trigger: "scheduled", onGuardBusy: "defer", mayRun: () => asked++ < 1, onFinished: (result, last) => void results.push({ result, last }) });
    await jobs.queue.idle();
    expect(results[0]!.result).toMatchObject({ state: "partial", errorCode: "maintenance_window_closed", threadsScanned: 1, trigger: "scheduled" });
    startOperation(deps, "cleanup", { trigger: "scheduled", onGuardBusy: "defer", afterThreadId: results[0]!.last, onFinished: (result, last) => void results.push({ result, last }) });
    await jobs.queue.idle();
    expect(results[1]!.result).toMatchObject({ state: "succeeded", threadsScanned: 1 });
    const reclaimed = results.reduce((n, { result }) => n + result.before.checkpoints - result.after.checkpoints, 0);
    // Full mode leaves the abandoned branch's leaf behind: the scheduled path reclaims it.
    if (config.mode === "full") expect(reclaimed).toBeGreaterThan(0);
    for (const { shape, expected } of shapes) {
      await expectBlobsConsistent(shape.threadId);
      expect(await verifyFourWays(h, shape.threadId, expected)).toEqual(ALL_OK);
      for (const handle of shape.runs) expect(await h.accessor.getState(shape.threadId, handle)).not.toBeNull();
    }
  });
}));
