// Reads racing a deletion made by another app instance on the same
// PostgreSQL database: the retention epoch is in the database, so instance
// A's read retries after instance B grafted a link out of the chain A was
// walking, or reclaimed the leaf A had resolved, exactly as it does after a
// deletion of its own process. Two runtimes in one test process, each with its
// own pool, shared by its saver and its store (server/db/pg/multi-instance.test.ts).
import type { RunnableConfig } from "@langchain/core/runnables";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { database as newDatabase, instance as newInstance, type Cleanups } from "@/server/db/pg/multi-instance-test-support";
import { createCheckpointAccessor } from "../accessor";
import { startRun, type RunDeps } from "../runs";
import { threadService } from "../service";
import type { StampingSaver } from "../stamping-saver";
import { createThread } from "../threads";
import { cleanupAtAdmission } from "./admission-cleanup";
import { graftAndDelete, judgeGraft } from "./protected-set";
import { loadThreadGraph } from "./thread-graph";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// A delta read walks every ancestor up to a snapshot: with a high snapshot
// frequency it walks through each run's duration link.
const ENV: NodeJS.ProcessEnv = { ...process.env, CHECKPOINT_CHANNEL_MODE: "delta", CHECKPOINT_DELTA_SNAPSHOT_FREQUENCY: "1000" };

/** Instances A and B on one fresh database, each with its thread service. */
async function twoInstances(): Promise<{ a: RunDeps; b: RunDeps }> {
  const db = await newDatabase(cleanups);
  const a = threadService(await newInstance(cleanups, db), ENV);
  const b = threadService(await newInstance(cleanups, db), ENV);
  expect(a.store).not.toBe(b.store);
  return { a, b };
}

/** Four runs on A without admission cleanup: each run's duration leaf stays as a link of the chain. */
async function linkedThread(a: RunDeps): Promise<{ threadId: string; links: string[]; messages: string[] }> {
  const building: RunDeps = { ...a, admit: undefined };
  const { threadId } = await createThread(building);
  const links: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    expect((await startRun(building, { threadId, content: `question ${i + 1}` })).status).toBe("success");
    const head = await a.accessor.rawTuple(threadId);
    links.push(String(head!.config.configurable?.checkpoint_id));
  }
  const messages = (await a.accessor.getState(threadId))!.values.messages.map((m) => String(m.id));
  return { threadId, links, messages };
}

/** A's saver, with a hook that runs once when A fetches `checkpointId` (before the fetch). */
function onFetch(a: RunDeps, checkpointId: string, hook: () => Promise<void> | void): { fired: () => number } {
  const inner = (a.accessor.saver as StampingSaver).inner;
  const getTuple = inner.getTuple.bind(inner);
  let fired = 0;
  inner.getTuple = async (cfg: RunnableConfig) => {
    if (fired === 0 && cfg.configurable?.checkpoint_id === checkpointId) {
      fired += 1;
      await hook();
    }
    return getTuple(cfg);
  };
  return { fired: () => fired };
}

describe.skipIf(!TEST_POSTGRES_URL)("reads racing a deletion by another instance", () => {
  /** A's read walks the chain; B grafts the second link out just before A fetches it. */
  async function raceGraftByB(accessorOf: (a: RunDeps) => RunDeps["accessor"]) {
    const { a, b } = await twoInstances();
    const thread = await linkedThread(a);
    const link = thread.links[1]!;
    expect(await judgeGraft({ store: b.store!, graph: await loadThreadGraph(b.store!, thread.threadId), checkpointId: link })).toMatchObject({ graftable: true });
    const before = await a.store!.retentionEpoch(thread.threadId);
    const hook = onFetch(a, link, async () => {
      expect((await graftAndDelete({ store: b.store!, threadId: thread.threadId, checkpointId: link })).deleted).toBe(true);
    });
    return { read: () => accessorOf(a).getState(thread.threadId), thread, hook, epochMoved: async () => (await a.store!.retentionEpoch(thread.threadId)) - before };
  }

  it("a delta read on instance A whose walk meets a link instance B just grafted out reads once more instead of answering checkpoint_lineage_integrity", async () => {
    const race = await raceGraftByB((a) => a.accessor);
    const state = await race.read();
    expect(race.hook.fired()).toBe(1);
    // A sees B's deletion through the database, not through anything B's process holds.
    expect(await race.epochMoved()).toBe(1);
    expect(state!.values.messages.map((m) => String(m.id))).toEqual(race.thread.messages);
    expect(state!.checkpointId).toBe(race.thread.links[3]);
  });

  it("without the retention epoch the same two-instance interleaving throws (the race the retry covers is real)", async () => {
    const race = await raceGraftByB((a) => createCheckpointAccessor({ saver: a.accessor.saver, config: a.accessor.config }));
    await expect(race.read()).rejects.toMatchObject({ code: "checkpoint_lineage_integrity" });
    expect(race.hook.fired()).toBe(1);
  });

  /** A pinned read on A of the thread's leaf; B's admission reclaims the leaf just after A resolved it. */
  async function racePinnedRead(accessorOf: (a: RunDeps) => RunDeps["accessor"]) {
    const { a, b } = await twoInstances();
    const thread = await linkedThread(a);
    const leaf = thread.links[3]!;
    let reclaimed = 0;
    const inner = (a.accessor.saver as StampingSaver).inner;
    const getTuple = inner.getTuple.bind(inner);
    inner.getTuple = async (cfg: RunnableConfig) => {
      const tuple = await getTuple(cfg);
      if (reclaimed === 0 && tuple?.config.configurable?.checkpoint_id === leaf) {
        reclaimed += 1;
        expect((await cleanupAtAdmission({ store: b.store!, threadId: thread.threadId, selectors: [] })).action).toBe("deleted");
      }
      return tuple;
    };
    const state = await accessorOf(a).getState(thread.threadId, leaf);
    expect(reclaimed).toBe(1);
    expect(await a.store!.retentionEpoch(thread.threadId)).toBe(1);
    return { a, thread, leaf, state };
  }

  it("a pinned read on A of the leaf B's admission reclaims meanwhile reads once more and answers nothing, not an empty conversation", async () => {
    const { a, thread, leaf, state } = await racePinnedRead((a) => a.accessor);
    expect(state).toBeNull();
    // The head read now resolves the leaf's parent, the run's state checkpoint, with the same conversation.
    const head = (await a.accessor.getState(thread.threadId))!;
    expect(head.checkpointId).not.toBe(leaf);
    expect(head.values.messages.map((m) => String(m.id))).toEqual(thread.messages);
  });

  it("without the retention epoch the same pinned read answers the reclaimed leaf with an empty conversation", async () => {
    const { leaf, state } = await racePinnedRead((a) => createCheckpointAccessor({ saver: a.accessor.saver, config: a.accessor.config }));
    expect(state?.checkpointId).toBe(leaf);
    expect(state?.values.messages).toEqual([]);
  });
});
