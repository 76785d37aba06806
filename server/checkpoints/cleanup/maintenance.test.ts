import { afterEach, describe, expect, it } from "vitest";
import { createThreadLocks } from "../thread-lock";
import { describeEachEngine } from "@/server/engines-test-support";
import { handlePolicy } from "../runs";
import { ALL_OK, buildLeafSibling, buildLinear, captureExpect, MODES, openEngineHarness, verifyFourWays, type Harness } from "./contract-support";
import { maintainThread, runEngine } from "./maintenance";
import { loadThreadGraph } from "./thread-graph";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

async function snapshotRows(harness: Harness): Promise<string> {
  const c = await harness.all("SELECT thread_id, checkpoint_id, parent_checkpoint_id FROM checkpoints ORDER BY 1, 2");
  const w = await harness.all(`SELECT thread_id, checkpoint_id, task_id, idx FROM ${harness.writesTable} ORDER BY 1, 2, 3, 4`);
  return JSON.stringify([c, w]);
}

describeEachEngine("maintenance engine", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  it("[CRC-12] analysis reports per-thread rows and bytes before and after exactly as the run does, and changes nothing", async () => {
    h = await openEngineHarness(db(), config);
    const a = await buildLeafSibling(h);
    const b = await buildLinear(h, 2);
    const rows = (await snapshotRows(h));
    const locks = createThreadLocks();
    const analysis = await runEngine({ store: h.store, locks, dryRun: true, graftLinks: true });
    expect((await snapshotRows(h))).toBe(rows);
    const run = await runEngine({ store: h.store, locks, dryRun: false, graftLinks: true });
    expect(run).toEqual(analysis);
    for (const t of run.threads) {
      expect(t.after).toEqual(await h.store.threadTotals(t.threadId));
      expect(t.after.checkpoints).toBeLessThan(t.before.checkpoints);
      expect(t.after.checkpointBytes).toBeLessThan(t.before.checkpointBytes);
    }
    expect(run.threads.map((t) => t.threadId).sort()).toEqual(expect.arrayContaining([a.threadId, b.threadId]));
    const forA = run.threads.find((t) => t.threadId === a.threadId)!;
    expect(forA.deleted.trailingLeaves).toBe(1);
    expect(forA.deleted.leafSiblings).toBeGreaterThanOrEqual(1);
    expect(forA.deleted.graftedLinks).toBeGreaterThanOrEqual(1);
    // A second run finds nothing left to do.
    const again = await runEngine({ store: h.store, locks, dryRun: false, graftLinks: true });
    for (const t of again.threads) expect(t.after).toEqual(t.before);
  });

  it("[CRC-08] [CRC-09] after a whole-thread pass: latest resume, explicit resume, branch from an older turn and zero orphans", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLeafSibling(h);
    // The explicit target: run 3's handle on the abandoned branch, a checkpoint the pass reclaims once
    // nothing protects it (it did before handles were recorded): the client still holds it.
    const explicit = shape.runs[2]!;
    const expectAfter = await captureExpect(h, shape.threadId, explicit);
    const report = await maintainThread({ store: h.store, dryRun: false, graftLinks: true, handles: handlePolicy(h.deps) }, shape.threadId);
    // The pass took the abandoned tip's leaf and kept the handle under it.
    expect(report.deleted.leafSiblings).toBeGreaterThan(0);
    expect((await loadThreadGraph(h.store, shape.threadId)).nodes.has(explicit)).toBe(true);
    expect(report.skipped).toBeNull();
    expect(report.orphanWritesAfter).toBe(0);
    expect(report.after.writes).toBe(report.before.writes - report.deleted.writes);
    expect(await verifyFourWays(h, shape.threadId, expectAfter)).toEqual(ALL_OK);
  });

  it("[CRC-09] [CRC-11] orphans are counted from the surviving set, never guessed at; a broken thread is skipped untouched", async () => {
    h = await openEngineHarness(db(), config);
    const shape = await buildLinear(h, 2);
    await h.accessor.saver.putWrites(h.accessor.runConfig(shape.threadId, "ghost-checkpoint"), [["notes", "x"]], "task-ghost");
    const report = await maintainThread({ store: h.store, dryRun: false }, shape.threadId);
    expect(report.orphanWritesBefore).toBe(1);
    expect(report.orphanWritesAfter).toBe(1);
    expect(report.deleted.trailingLeaves).toBe(1);

    const broken = await buildLeafSibling(h);
    const g = await loadThreadGraph(h.store, broken.threadId);
    const ancestor = g.nodes.get(g.nodes.get(g.headId!)!.parentId!)!.parentId!;
    await h.store.transaction(() => h!.store.deleteCheckpoints(broken.threadId, [ancestor]));
    const before = (await snapshotRows(h));
    const skipped = await maintainThread({ store: h.store, dryRun: false, graftLinks: true }, broken.threadId);
    expect(skipped.skipped).toBe("broken_lineage");
    expect(skipped.after).toEqual(skipped.before);
    expect((await snapshotRows(h))).toBe(before);
  });
}));
