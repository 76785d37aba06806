import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine, type EngineDb } from "@/server/engines-test-support";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { HumanMessage, type AIMessage } from "@langchain/core/messages";
import { isAppError } from "@/server/errors";
import type { CheckpointAccessor, ThreadSnapshot } from "./accessor";
import { FALLBACK_RAW_LIMIT, fallbackCheckpointBefore, findCheckpointBeforeMessage, walkToCheckpointBefore } from "./lineage";
import { startRun } from "./runs";
import { branch, createThread, regenerate } from "./threads";
import { openEngineHarness, type Harness } from "./cleanup/contract-support";
import { DELTA, FULL, sequentialIds } from "./test-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

/** A saver + accessor on the test's database, and the run deps of that opening. */
async function open(db: EngineDb, config: (typeof FULL) | (typeof DELTA)) {
  h = await openEngineHarness(db, config);
  return { accessor: h.accessor, saver: h.accessor.saver, deps: h.deps };
}

/** A fresh saver + accessor on the same database (a "reload"). */
function reload(config: typeof FULL): CheckpointAccessor {
  h!.reopen(config);
  return h!.accessor;
}

type FakeNode = { id: string; parent?: string | null; parentNoId?: boolean; noId?: boolean; duration?: boolean; messages: string[]; next?: string[] };

/** An in-memory stand-in for the accessor's read surface, for shapes storage cannot hold. */
function fakeAccessor(nodes: FakeNode[], calls: { rawList: number[] } = { rawList: [] }): CheckpointAccessor {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const tuple = (n: FakeNode): CheckpointTuple => ({
    config: { configurable: n.noId ? { thread_id: "t" } : { thread_id: "t", checkpoint_id: n.id } },
    checkpoint: { v: 4, id: n.id, ts: "2026-01-01T00:00:00Z", channel_values: {}, channel_versions: {}, versions_seen: {} },
    metadata: (n.duration ? { source: "update", step: 0, parents: {}, writes: { runtime_run_duration: {} } } : { source: "loop", step: 0, parents: {} }) as CheckpointTuple["metadata"],
    parentConfig: n.parentNoId ? { configurable: { thread_id: "t" } } : n.parent ? { configurable: { thread_id: "t", checkpoint_id: n.parent } } : undefined,
  });
  const snapshot = (n: FakeNode): ThreadSnapshot => ({
    threadId: "t",
    checkpointId: n.id,
    parentCheckpointId: n.parent ?? null,
    createdAt: null,
    metadata: {},
    values: { messages: n.messages.map((id) => new HumanMessage({ id, content: id })), title: null, notes: [] },
    next: n.next ?? [],
    degraded: false,
  });
  return {
    rawTuple: async (_t: string, id?: string) => {
      const n = id ? byId.get(id) : nodes[0];
      return n ? tuple(n) : undefined;
    },
    getState: async (_t: string, id?: string) => {
      const n = id ? byId.get(id) : nodes[0];
      return n ? snapshot(n) : null;
    },
    stateAt: async (_t: string, id: string) => {
      const n = byId.get(id);
      return n ? snapshot(n) : null;
    },
    parentLinks: async () => null,
    rawList: async (_t: string, limit: number) => {
      calls.rawList.push(limit);
      return nodes.slice(0, limit).map(tuple);
    },
  } as unknown as CheckpointAccessor;
}

async function lineageError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error) && error.code === "checkpoint_lineage_integrity") return error.message;
    throw error;
  }
  throw new Error("expected a lineage integrity error");
}

// The fake-accessor cases touch no storage; they run once per engine with the rest.
describeEachEngine("replay lineage", ({ db }) => describe("lineage", () => {
  it("[CCM-12] the base is found by walking parent links, so a sibling made by regeneration is never picked", async () => {
    const { accessor, deps } = await open(db(), FULL);
    const { threadId } = await createThread(deps);
    await startRun(deps, { threadId, content: "q0" });
    await startRun(deps, { threadId, content: "q1" });
    for (let i = 0; i < 2; i += 1) {
      const answer = (await accessor.getState(threadId))!.values.messages.at(-1)!;
      expect((await regenerate(deps, threadId, String(answer.id))).status).toBe("success");
    }
    const messages = (await accessor.getState(threadId))!.values.messages;
    expect(messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]);
    expect(messages.filter((m) => m.getType() === "human").map((m) => m.content)).toEqual(["q0", "q1"]);
    // The base of the latest human message lies on the current path.
    const human = messages[4]!;
    const base = await findCheckpointBeforeMessage({ accessor, threadId, messageId: String(human.id) });
    const baseState = (await accessor.getState(threadId, base!))!;
    expect(baseState.values.messages.map((m) => m.id)).toEqual(messages.slice(0, 4).map((m) => m.id));
  });

  it("[CCM-12] only an explicitly missing legacy parent link enables the fallback scan", async () => {
    const { accessor, saver, deps } = await open(db(), FULL);
    const { threadId } = await createThread(deps);
    await startRun(deps, { threadId, content: "q0" });
    await startRun(deps, { threadId, content: "q1" });
    const messages = (await accessor.getState(threadId))!.values.messages;
    const target = String(messages[4]!.id);
    const viaWalk = await findCheckpointBeforeMessage({ accessor, threadId, messageId: target });
    // Sever the link of the newest non-leaf checkpoint (a legacy row).
    const head = await saver.getTuple({ configurable: { thread_id: threadId } });
    const headParent = String(head!.parentConfig!.configurable!.checkpoint_id);
    await h!.run("update checkpoints set parent_checkpoint_id = NULL where checkpoint_id = ?", [headParent]);
    await expect(walkToCheckpointBefore({ accessor, threadId, messageId: target })).rejects.toThrow("no parent link");
    expect(await findCheckpointBeforeMessage({ accessor, threadId, messageId: target })).toBe(viaWalk);
    // A dangling link is an integrity failure, not a fallback.
    await h!.run("update checkpoints set parent_checkpoint_id = ? where checkpoint_id = ?", ["1f000000-dead-6000-8000-000000000000", headParent]);
    expect(await lineageError(findCheckpointBeforeMessage({ accessor, threadId, messageId: target }))).toContain("missing parent");
  });

  it("[CCM-13] cycles (one 1,000 checkpoints down too: the walk's depth bound is its cycle guard, so depth runs out only in a cycle), non-addressable parents and target mismatch fail closed", async () => {
    const cycle = fakeAccessor([
      { id: "c3", parent: "c2", messages: ["m"] },
      { id: "c2", parent: "c3", messages: ["m"] },
    ]);
    expect(await lineageError(findCheckpointBeforeMessage({ accessor: cycle, threadId: "t", messageId: "m" }))).toContain("cycle");
    const noId = fakeAccessor([{ id: "c3", parentNoId: true, messages: ["m"] }]);
    expect(await lineageError(findCheckpointBeforeMessage({ accessor: noId, threadId: "t", messageId: "m" }))).toContain("non-addressable");
    const mismatch = fakeAccessor([
      { id: "c4", parent: "c3", messages: ["m"] },
      { id: "c3", parent: "c2", messages: [], next: ["agent"] },
      { id: "c2", parent: "c1", messages: ["m"] },
      { id: "c1", messages: [] },
    ]);
    expect(await lineageError(findCheckpointBeforeMessage({ accessor: mismatch, threadId: "t", messageId: "m" }))).toContain("reappears");
    // A far-down cycle is still caught (the only bound on an intact walk is the cycle guard).
    const far = fakeAccessor(Array.from({ length: 1000 }, (_, i) => ({ id: `c${1000 - i}`, parent: i < 999 ? `c${999 - i}` : "c900", messages: ["m"] })));
    expect(await lineageError(findCheckpointBeforeMessage({ accessor: far, threadId: "t", messageId: "m" }))).toContain("cycle");
  });

  it("[CCM-12] an intact chain has no depth budget: the base lies 3,000 checkpoints down and few states are read", async () => {
    const nodes: FakeNode[] = [];
    const n = 3000;
    for (let i = 0; i < n; i += 1) nodes.push({ id: `c${n - i}`, parent: `c${n - i - 1}`, messages: ["b", "m"], duration: i % 6 === 0 });
    nodes.push({ id: "c0", parent: "r", messages: ["b"] });
    nodes.push({ id: "r", messages: [] });
    const reads = { getState: 0 };
    const accessor = fakeAccessor(nodes);
    const counted = { ...accessor, stateAt: (...a: Parameters<typeof accessor.stateAt>) => ((reads.getState += 1), accessor.stateAt(...a)) } as CheckpointAccessor;
    expect(await findCheckpointBeforeMessage({ accessor: counted, threadId: "t", messageId: "m" })).toBe("c0");
    expect(reads.getState).toBeLessThan(20);
  });

  it("[CCM-14] the fallback reads 400 raw checkpoints, skips duration-only ones, takes 200 effective and needs an addressable idle base", async () => {
    const nodes: FakeNode[] = [];
    // Newest first: 200 duration-only leaves, then 200 checkpoints holding the target, then the base.
    for (let i = 0; i < 200; i += 1) nodes.push({ id: `d${i}`, duration: true, messages: ["m"] });
    for (let i = 0; i < 199; i += 1) nodes.push({ id: `h${i}`, messages: ["m"] });
    nodes.push({ id: "pending", messages: [], next: ["agent"] });
    nodes.push({ id: "base", messages: [] });
    const calls = { rawList: [] as number[] };
    expect(await fallbackCheckpointBefore({ accessor: fakeAccessor(nodes, calls), threadId: "t", messageId: "m" })).toBeNull();
    // The budget: 400 raw checkpoints, so 200 duration-only ones leave 200 effective.
    expect(FALLBACK_RAW_LIMIT).toBe(400);
    expect(calls.rawList).toEqual([400]);
    // With one fewer target checkpoint the idle base is within the 200 effective ones.
    const fits = nodes.filter((n) => n.id !== "h0");
    expect(await fallbackCheckpointBefore({ accessor: fakeAccessor(fits), threadId: "t", messageId: "m" })).toBe("base");
    // The same idle base without an addressable id is never picked.
    const unaddressable = fits.map((n) => (n.id === "base" ? { ...n, noId: true } : n));
    expect(await fallbackCheckpointBefore({ accessor: fakeAccessor(unaddressable), threadId: "t", messageId: "m" })).toBeNull();
  });

  it("[CCM-15] #4458: regenerate in a branched delta thread never shows the superseded answer after a reload", async () => {
    const { accessor, deps } = await open(db(), DELTA);
    const { threadId } = await createThread(deps);
    for (let i = 0; i < 3; i += 1) await startRun(deps, { threadId, content: `q${i}` });
    const source = (await accessor.getState(threadId))!.values.messages;
    const secondAnswer = source.filter((m) => m.getType() === "ai" && !(m as AIMessage).tool_calls?.length)[1]!;
    const { threadId: branched } = await branch(deps, threadId, String(secondAnswer.id));
    const branchedStart = (await accessor.getState(branched))!.values.messages.map((m) => String(m.id));
    expect(branchedStart.at(-1)).toBe(String(secondAnswer.id));
    await startRun(deps, { threadId: branched, content: "q-branch" });
    const superseded: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const answer = (await accessor.getState(branched))!.values.messages.at(-1)!;
      superseded.push(String(answer.id));
      expect((await regenerate(deps, branched, String(answer.id))).status).toBe("success");
    }
    // Reload: a fresh connection, saver and accessor on the same file.
    const reloaded = reload(DELTA);
    const after = (await reloaded.getState(branched))!.values.messages;
    const ids = after.map((m) => String(m.id));
    for (const old of superseded) expect(ids).not.toContain(old);
    expect(ids.slice(0, branchedStart.length)).toEqual(branchedStart);
    expect(after.map((m) => m.getType()).slice(branchedStart.length)).toEqual(["human", "ai", "tool", "ai"]);
    expect(after.filter((m) => m.getType() === "human").map((m) => m.content)).toEqual(["q0", "q1", "q-branch"]);
    // The source thread is untouched and the branch never forked.
    expect((await reloaded.getState(threadId))!.values.messages.map((m) => m.id)).toEqual(source.map((m) => m.id));
    const parents = await h!.all("select parent_checkpoint_id from checkpoints where thread_id = ? and parent_checkpoint_id is not null group by parent_checkpoint_id having count(*) > 1", [branched]);
    expect(parents).toEqual([]);
  });

  it("[CCM-15] regenerate replaces the answer and later turns leave the visible conversation (full and delta agree)", async () => {
    const views: string[][] = [];
    for (const config of [FULL, DELTA]) {
      // One database, the second mode on a fresh opening; each mode mints the same ids so the views compare.
      const opened = h ? { accessor: reload(config), deps: h.deps } : await open(db(), config);
      const accessor = opened.accessor;
      const deps = { ...opened.deps, newId: sequentialIds("x") };
      // A thread of its own per mode (run ids are unique per thread), the same message and run ids.
      const { threadId } = await createThread({ ...deps, newId: () => `thread-${config.mode}` });
      for (let i = 0; i < 3; i += 1) await startRun(deps, { threadId, content: `q${i}` });
      const firstAnswer = (await accessor.getState(threadId))!.values.messages[3]!;
      await regenerate(deps, threadId, String(firstAnswer.id));
      const after = (await reload(config).getState(threadId))!.values.messages;
      expect(after.filter((m) => m.getType() === "human").map((m) => m.content)).toEqual(["q0"]);
      expect(after.map((m) => m.id)).not.toContain(firstAnswer.id);
      views.push(after.map((m) => `${m.getType()}:${String(m.content).slice(0, 40)}`));
    }
    expect(views[0]).toEqual(views[1]);
  });
}));
