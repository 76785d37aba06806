import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { startRun } from "../runs";
import { ALL_OK, buildLeafSibling, buildLinear, captureExpect, MODES, openEngineHarness, verifyFourWays, type Harness } from "./contract-support";
import { deleteCheckpointSafely, graftAndDelete, judgeDeletion, judgeGraft, protectedSet } from "./protected-set";
import { loadThreadGraph } from "./thread-graph";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

type Materialized = Map<string, string>;

/** The materialized state of every surviving checkpoint (ids and contents). */
async function materializeAll(harness: Harness, threadId: string): Promise<Materialized> {
  const out: Materialized = new Map();
  for (const id of (await loadThreadGraph(harness.store, threadId)).nodes.keys()) {
    const s = await harness.accessor.getState(threadId, id);
    out.set(id, JSON.stringify({ m: s?.values.messages.map((m) => [m.id, m.content]), t: s?.values.title, n: s?.values.notes }));
  }
  return out;
}

describeEachEngine("protected set", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-04] a duration-only chain link is protected; graftAndDelete re-parents its child onto the grandparent in one transaction", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 3);
    const link = shape.leaves[0]!;
    const graph = await loadThreadGraph(h.store, shape.threadId);
    const verdict = await judgeDeletion({ store: h.store, graph, checkpointId: link });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("duration_chain_link");
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: link })).deleted).toBe(false);
    // A pinned link is not grafted either.
    expect(await judgeGraft({ store: h.store, graph, checkpointId: link, pins: new Set([link]) })).toEqual({ graftable: false, reasons: ["explicit_resume_target"] });
    expect(await judgeGraft({ store: h.store, graph, checkpointId: shape.headId })).toEqual({ graftable: false, reasons: ["not_a_link"] });
    const grandparent = graph.nodes.get(link)!.parentId!;
    const child = graph.children.get(link)![0]!;
    const before = await materializeAll(h, shape.threadId);
    const expectAfter = await captureExpect(h, shape.threadId, shape.runs[1]!);
    expect(await graftAndDelete({ store: h.store, threadId: shape.threadId, checkpointId: link })).toEqual({ deleted: true, verdict: { graftable: true, parentId: grandparent } });
    const after = await loadThreadGraph(h.store, shape.threadId);
    expect(after.nodes.has(link)).toBe(false);
    expect(after.nodes.get(child)!.parentId).toBe(grandparent);
    // Every surviving checkpoint materializes exactly as before.
    const materialized = await materializeAll(h, shape.threadId);
    before.delete(link);
    expect(materialized).toEqual(before);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-05] the newest checkpoint stays addressable: only a trailing duration leaf with an identical parent may go, and then the parent is the protected head", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: shape.headId })).deleted).toBe(true);
    const graph = await loadThreadGraph(h.store, shape.threadId);
    const verdict = await judgeDeletion({ store: h.store, graph, checkpointId: graph.headId! });
    expect(verdict.deletable ? [] : verdict.reasons).toContain("newest");
    // A failed run leaves a non-duration head: protected as newest.
    await startRun(h.deps, { threadId: shape.threadId, content: "fails", beforeNode: (n) => { if (n === "reply") throw new Error("x"); } });
    const failedGraph = await loadThreadGraph(h.store, shape.threadId);
    const v2 = await judgeDeletion({ store: h.store, graph: failedGraph, checkpointId: failedGraph.headId! });
    expect(v2.deletable ? [] : v2.reasons).toContain("newest");
    // Some checkpoint of every thread is always protected.
    for (const g of [graph, failedGraph]) expect((await protectedSet({ store: h.store, graph: g })).has(g.headId!)).toBe(true);
  });

  it("[CRC-11] unprovable deletions do not ship: broken lineage or foreign namespaces refuse every deletion", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    const sibling = shape.siblingLeafId;
    // Break the main line (a naive policy's doing): now nothing is provable.
    const main = await loadThreadGraph(h.store, shape.threadId);
    const ancestor = main.nodes.get(main.nodes.get(main.headId!)!.parentId!)!.parentId!;
    await h.store.transaction(() => h!.store.deleteCheckpoints(shape.threadId, [ancestor]));
    const broken = await loadThreadGraph(h.store, shape.threadId);
    expect(await judgeDeletion({ store: h.store, graph: broken, checkpointId: sibling })).toEqual({ deletable: false, reasons: ["broken_lineage"] });
    expect((await deleteCheckpointSafely({ store: h.store, threadId: shape.threadId, checkpointId: sibling })).deleted).toBe(false);
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.has(sibling)).toBe(true);

    const other = await buildLeafSibling(h);
    await h.run("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, 'sub', 'x', NULL, 'json', '{}', '{}')", [other.threadId]);
    const foreign = await loadThreadGraph(h.store, other.threadId);
    expect(await judgeDeletion({ store: h.store, graph: foreign, checkpointId: other.siblingLeafId })).toEqual({ deletable: false, reasons: ["unknown_namespace"] });
    expect(await judgeDeletion({ store: h.store, graph: foreign, checkpointId: "missing" })).toEqual({ deletable: false, reasons: ["not_found"] });
  });
}));
