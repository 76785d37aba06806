// The retention epoch in the database: every deletion path bumps it in its own
// transaction (so a read in another process sees the bump after the
// deletion), and nothing that deletes nothing moves it. Both engines.
import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { cleanupAtAdmission } from "./admission-cleanup";
import { buildLinear, MODES, openEngineHarness, type Harness } from "./contract-support";
import { maintainThread } from "./maintenance";
import { graftAndDelete } from "./protected-set";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

describeEachEngine("retention epoch", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("admission's reclaim, a graft and Clean up each bump it; a refused deletion and an analysis do not", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 4);
    const epoch = () => h!.store.retentionEpoch(shape.threadId);
    expect(await epoch()).toBe(0);
    // Not the newest checkpoint: refused, no bump.
    expect(await h.store.deleteTrailingLeaf(shape.threadId, shape.leaves[0]!)).toBe(false);
    expect(await epoch()).toBe(0);
    expect((await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).action).toBe("deleted");
    expect(await epoch()).toBe(1);
    // Nothing left to reclaim at the head: no bump.
    expect((await cleanupAtAdmission({ store: h.store, threadId: shape.threadId, selectors: [] })).action).toBe("noop");
    expect(await epoch()).toBe(1);
    expect((await graftAndDelete({ store: h.store, threadId: shape.threadId, checkpointId: shape.leaves[1]! })).deleted).toBe(true);
    expect(await epoch()).toBe(2);
    // An analysis computes the same deletions and rolls them back, bump included.
    const analysis = await maintainThread({ store: h.store, dryRun: true, graftLinks: true }, shape.threadId);
    expect(analysis.after.checkpoints).toBeLessThan(analysis.before.checkpoints);
    expect(await epoch()).toBe(2);
    const cleanUp = await maintainThread({ store: h.store, dryRun: false, graftLinks: true }, shape.threadId);
    expect(cleanUp.after.checkpoints).toBe(analysis.after.checkpoints);
    expect(await epoch()).toBeGreaterThan(2);
    // Another thread's epoch is its own.
    expect(await h.store.retentionEpoch("no-such-thread")).toBe(0);
  });

  it("a deletion rolled back with its transaction leaves the epoch as it was", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    await expect(
      h.store.transaction(async () => {
        expect((await h!.store.deleteCheckpoints(shape.threadId, [shape.leaves[0]!])).checkpoints).toBe(1);
        expect(await h!.store.retentionEpoch(shape.threadId)).toBe(1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await h.store.retentionEpoch(shape.threadId)).toBe(0);
    expect(await h.store.checkpointExists(shape.threadId, shape.leaves[0]!)).toBe(true);
  });
}));
