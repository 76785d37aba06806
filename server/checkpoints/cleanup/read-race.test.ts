import type { RunnableConfig } from "@langchain/core/runnables";
import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { createCheckpointAccessor } from "../accessor";
import { cleanupAtAdmission } from "./admission-cleanup";
import { storeRetentionEpochs } from "./epoch";
import { graftAndDelete, judgeGraft } from "./protected-set";
import { loadThreadGraph } from "./thread-graph";
import type { ModeConfig } from "../mode";
import type { StampingSaver } from "../stamping-saver";
import { buildLinear, MODES, openEngineHarness, type Harness } from "./contract-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

describeEachEngine("reads racing a reclaim", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it.each([
    [1, false],
    [2, false],
    [4, false],
    [5, false],
    [4, true],
  ])("a state read racing the reclaim of the leaf it resolved reads once more (%i turns, pinned: %s)", async (turns, pinned) => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, turns);
    const expected = (await h.accessor.getState(shape.threadId))!.values.messages.map((m) => m.id);
    const saver = h.accessor.saver;
    let armed = true;
    const store = h.store;
    // Reads compare the thread's epoch in the database, which the reclaim bumps.
    const epochs = storeRetentionEpochs(store);
    // The reclaim lands right after the read resolved the head (the leaf).
    const racing = new Proxy(saver, {
      get(target, key, receiver) {
        if (key === "getTuple") {
          return async (cfg: RunnableConfig) => {
            const tuple = await target.getTuple(cfg);
            if (armed && tuple && tuple.config.configurable?.checkpoint_id === shape.headId && (pinned || !cfg.configurable?.checkpoint_id)) {
              armed = false;
              expect((await cleanupAtAdmission({ store, threadId: shape.threadId, selectors: [] })).action).toBe("deleted");
            }
            return tuple;
          };
        }
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const accessor = createCheckpointAccessor({ saver: racing, config: h.accessor.config, epochs });
    const state = await accessor.getState(shape.threadId, pinned ? shape.headId : undefined);
    expect(armed).toBe(false);
    // An explicit historical read never moves to another checkpoint.
    if (pinned) expect(state).toBeNull();
    else expect(state!.values.messages.map((m) => m.id)).toEqual(expected);
  });
}));

describeEachEngine("reads racing a graft", ({ db }) => {
  // A delta read walks every ancestor up to a snapshot: with a high snapshot
  // frequency it walks through each run's duration link.
  const WALKING: ModeConfig = { mode: "delta", snapshotFrequency: 1000 };

  /** A thread of duration links (no admission), and a read whose walk meets `link` just after Clean up grafted it out. */
  async function raceGraft(withEpochs: boolean) {
    h = await openEngineHarness(db(), WALKING);
    const epochs = withEpochs ? storeRetentionEpochs(h.store) : undefined;
    const shape = await buildLinear(h, 4);
    const expected = (await h.accessor.getState(shape.threadId))!.values.messages.map((m) => String(m.id));
    const link = shape.leaves[1]!;
    expect(await judgeGraft({ store: h.store, graph: await loadThreadGraph(h.store, shape.threadId), checkpointId: link })).toMatchObject({ graftable: true });
    const saver = h.accessor.saver as StampingSaver;
    const inner = saver.inner;
    const getTuple = inner.getTuple.bind(inner);
    let grafted = 0;
    // The walk already holds the link's child (whose parent link still names the link): the graft lands before the link is fetched.
    inner.getTuple = async (cfg: RunnableConfig) => {
      if (grafted === 0 && cfg.configurable?.checkpoint_id === link) {
        grafted += 1;
        expect((await graftAndDelete({ store: h!.store, threadId: shape.threadId, checkpointId: link })).deleted).toBe(true);
      }
      return getTuple(cfg);
    };
    const accessor = createCheckpointAccessor({ saver, config: WALKING, epochs });
    return { read: () => accessor.getState(shape.threadId), expected, grafted: () => grafted };
  }

  it("a delta read whose walk meets a link Clean up just grafted out reads once more instead of answering checkpoint_lineage_integrity", async () => {
    const race = await raceGraft(true);
    const state = await race.read();
    expect(race.grafted()).toBe(1);
    expect(state!.values.messages.map((m) => String(m.id))).toEqual(race.expected);
  });

  it("without the retention epoch the same interleaving throws (the race the retry covers is real)", async () => {
    const race = await raceGraft(false);
    await expect(race.read()).rejects.toMatchObject({ code: "checkpoint_lineage_integrity" });
    expect(race.grafted()).toBe(1);
  });
});
