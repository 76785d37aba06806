// Lean leaves: the duration-only leaf of a run stores no channel values (in
// full mode not the conversation, in delta mode not the messages snapshot nor
// the other channels); it still reads as its parent's state and a link made
// of it is still provably graftable.
import { describe, expect, it } from "vitest";
import { loadThreadGraph } from "./cleanup/thread-graph";
import { judgeGraft } from "./cleanup/protected-set";
import { startRun } from "./runs";
import { createThread } from "./threads";
import { checkpointTestEnvPerTest, DELTA, FULL, sequentialIds, testRunDeps } from "./test-support";

const env = checkpointTestEnvPerTest();

describe.each([
  ["full", FULL],
  ["delta", DELTA],
] as const)("duration leaves (%s mode)", (mode, config) => {
  it("a duration leaf stores no channel values, reads as its parent and stays graftable", async () => {
    const { accessor, store, sqlite } = env.open(config);
    const deps = { ...testRunDeps(accessor, sequentialIds()), store };
    const { threadId } = await createThread(deps);
    for (let i = 0; i < 7; i += 1) await startRun(deps, { threadId, content: `q${i}` });
    const graph = await loadThreadGraph(store, threadId);
    const leaves = [...graph.nodes.values()].filter((n) => n.durationOnly);
    expect(leaves).toHaveLength(7);
    const hasMessages = sqlite.prepare("SELECT json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') IS NOT NULL AS has FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?");
    const has = (id: string) => (hasMessages.get(threadId, id) as { has: number }).has === 1;
    const storedValues = sqlite.prepare("SELECT json_extract(CAST(checkpoint AS TEXT), '$.channel_values') AS v FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?");
    // Some leaf's parent holds a snapshot (snapshot frequency 3), so the case is covered.
    if (mode === "delta") expect(leaves.some((leaf) => has(leaf.parentId!))).toBe(true);
    let graftableWithSnapshot = 0;
    for (const leaf of leaves) {
      expect((storedValues.get(threadId, leaf.id) as { v: string }).v).toBe("{}");
      const own = (await accessor.getState(threadId, leaf.id))!.values;
      const parent = (await accessor.getState(threadId, leaf.parentId!))!.values;
      expect(own.messages.map((m) => m.id)).toEqual(parent.messages.map((m) => m.id));
      expect(own.notes).toEqual(parent.notes);
      if (leaf.id === graph.headId) continue;
      expect(await judgeGraft({ store, graph, checkpointId: leaf.id })).toEqual({ graftable: true, parentId: leaf.parentId });
      if (has(leaf.parentId!)) graftableWithSnapshot += 1;
    }
    expect(graftableWithSnapshot).toBeGreaterThan(0);
  });
});
