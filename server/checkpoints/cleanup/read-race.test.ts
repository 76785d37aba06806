import type { RunnableConfig } from "@langchain/core/runnables";
import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { createCheckpointAccessor } from "../accessor";
import { cleanupAtAdmission } from "./admission-cleanup";
import { createRetentionEpochs } from "./epoch";
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
  ])("[CRC-15] a state read racing the reclaim of the leaf it resolved reads once more (%i turns, pinned: %s)", async (turns, pinned) => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, turns);
    const expected = (await h.accessor.getState(shape.threadId))!.values.messages.map((m) => m.id);
    const saver = h.accessor.saver;
    let armed = true;
    const store = h.store;
    // Reads and the reclaim share one counter, as they do in a runtime.
    const epochs = createRetentionEpochs();
    // The reclaim lands right after the read resolved the head (the leaf).
    const racing = new Proxy(saver, {
      get(target, key, receiver) {
        if (key === "getTuple") {
          return async (cfg: RunnableConfig) => {
            const tuple = await target.getTuple(cfg);
            if (armed && tuple && tuple.config.configurable?.checkpoint_id === shape.headId && (pinned || !cfg.configurable?.checkpoint_id)) {
              armed = false;
              expect(cleanupAtAdmission({ store, threadId: shape.threadId, selectors: [], epochs }).action).toBe("deleted");
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
