import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { openEngineHarness, type Harness } from "./cleanup/contract-support";
import { MemorySaver } from "@langchain/langgraph";
import { ERROR_STATUS } from "@/lib/api/error-codes";
import { isAppError } from "@/server/errors";
import { createCheckpointAccessor } from "./accessor";
import { MODE_MARKER_KEY } from "./stamping-saver";
import { startRun } from "./runs";
import { createThread } from "./threads";
import { viewValues } from "./view";
import { checkpointTestEnvPerTest, countRows, DELTA, FULL, sequentialIds, testRunDeps } from "./test-support";

const env = checkpointTestEnvPerTest();

async function seedThread(config: typeof FULL | typeof DELTA, turns: number, prefix: string) {
  const { accessor, saver, sqlite } = env.open(config);
  const deps = testRunDeps(accessor, sequentialIds(prefix));
  const { threadId } = await createThread(deps);
  for (let i = 0; i < turns; i += 1) await startRun(deps, { threadId, content: `question ${i}` });
  return { threadId, accessor, saver, sqlite, deps };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("checkpoint accessor", () => {
  it("[CCM-09] thread access through the accessor injects the mode, gates every read and answers materialized state", async () => {
    const { threadId, accessor, saver } = await seedThread(DELTA, 2, "d");
    expect(accessor.runConfig(threadId).configurable?.[MODE_MARKER_KEY]).toBe("delta");
    const raw = await saver.getTuple({ configurable: { thread_id: threadId } });
    // A raw read of a delta checkpoint sees no messages...
    expect(raw!.checkpoint.channel_values.messages).toBeUndefined();
    // ...the accessor materializes them, and every checkpoint (duration leaves too) is stamped.
    const state = await accessor.getState(threadId);
    expect(state!.values.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]);
    for await (const t of saver.list({ configurable: { thread_id: threadId } })) expect(t.metadata?.[MODE_MARKER_KEY as "source"]).toBe("delta");
    // The gate runs before every read: an accessor bound to the other mode is refused on state, history and raw reads.
    const other = createCheckpointAccessor({ saver, config: FULL });
    for (const read of [() => other.getState(threadId), () => other.history(threadId, 5), () => other.rawTuple(threadId)]) {
      await expect(read()).rejects.toMatchObject({ code: "checkpoint_mode_mismatch" });
    }
  });

  it("the accessor relies only on the BaseCheckpointSaver contract (works on MemorySaver too)", async () => {
    const memory = new MemorySaver();
    const accessor = createCheckpointAccessor({ saver: memory, config: FULL });
    const deps = testRunDeps(accessor, sequentialIds("m"));
    const { threadId } = await createThread(deps);
    await startRun(deps, { threadId, content: "in memory" });
    expect((await accessor.getState(threadId))!.values.messages).toHaveLength(4);
    const deltaMemory = new MemorySaver();
    const deltaAccessor = createCheckpointAccessor({ saver: deltaMemory, config: DELTA });
    const deltaThread = (await createThread(testRunDeps(deltaAccessor, sequentialIds("n")))).threadId;
    await startRun(testRunDeps(deltaAccessor, sequentialIds("o")), { threadId: deltaThread, content: "delta in memory" });
    // Without our wrapper nothing stamps the marker; upstream's counters still mark the thread delta.
    const error = await rejection(createCheckpointAccessor({ saver: deltaMemory, config: FULL }).getState(deltaThread));
    expect(isAppError(error) && error.code).toBe("checkpoint_mode_mismatch");
  });

  it("[CCM-10] history(0) is empty without touching storage; undefined is unlimited", async () => {
    const { threadId, accessor, sqlite } = await seedThread(FULL, 2, "f");
    const total = countRows(sqlite, threadId).checkpoints;
    expect((await accessor.history(threadId)).length).toBe(total);
    expect((await accessor.history(threadId, 3)).length).toBe(3);
    sqlite.close();
    // A closed connection would throw on any query.
    expect(await accessor.history(threadId, 0)).toEqual([]);
  });

  it("[CCM-11] full-mode reads degrade to a raw read when the graph cannot be built; delta has no fallback", async () => {
    const failing = () => {
      throw new Error("graph factory unavailable");
    };
    const fullSeed = await seedThread(FULL, 2, "f");
    const degraded = createCheckpointAccessor({ saver: fullSeed.saver, config: FULL, buildGraph: failing });
    const state = await degraded.getState(fullSeed.threadId);
    expect(state!.degraded).toBe(true);
    expect(state!.next).toEqual([]);
    expect(viewValues(state!.values)).toEqual(viewValues((await fullSeed.accessor.getState(fullSeed.threadId))!.values));
    expect(state!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect((await degraded.history(fullSeed.threadId, 2)).length).toBe(2);

    const deltaSeed = await seedThread(DELTA, 1, "d");
    const noFallback = createCheckpointAccessor({ saver: deltaSeed.saver, config: DELTA, buildGraph: failing });
    await expect(noFallback.getState(deltaSeed.threadId)).rejects.toThrow("graph factory unavailable");
    // The gate still applies on the degraded path.
    const fullOnDelta = createCheckpointAccessor({ saver: env.open(FULL).saver, config: FULL, buildGraph: failing });
    const error = await rejection(fullOnDelta.getState(deltaSeed.threadId));
    expect(isAppError(error) && error.code).toBe("checkpoint_mode_mismatch");
  });

  for (const config of [FULL, DELTA]) {
    it(`[CCM-17] wholesale replacement overwrites reducer channels and keeps extra channels (${config.mode})`, async () => {
      const { threadId, accessor } = await seedThread(config, 3, config.mode);
      const head = (await accessor.getState(threadId))!;
      expect(head.values.notes).toHaveLength(3);
      const firstTurn = head.values.messages.slice(0, 4);
      await accessor.replace(threadId, { messages: firstTurn, title: head.values.title, notes: head.values.notes.slice(0, 1) });
      const reopened = env.open(config).accessor;
      const after = (await reopened.getState(threadId))!;
      // Overwrite replaced instead of merging through the reducers.
      expect(after.values.messages.map((m) => m.id)).toEqual(firstTurn.map((m) => m.id));
      expect(after.values.notes).toEqual(head.values.notes.slice(0, 1));
      expect(after.values.title).toBe(head.values.title);
    });
  }

  it("[CCM-18] the mutation graph schedules no pending tasks and writes an ordinary update checkpoint", async () => {
    for (const config of [FULL, DELTA]) {
      const { threadId, accessor, saver, sqlite } = await seedThread(config, 2, config.mode);
      const before = countRows(sqlite, threadId).checkpoints;
      const id = await accessor.replace(threadId, { messages: [] });
      const state = (await accessor.getState(threadId))!;
      expect(state.checkpointId).toBe(id);
      expect(state.next).toEqual([]);
      expect(state.metadata.source).toBe("update");
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_id: id } });
      expect(tuple!.pendingWrites ?? []).toEqual([]);
      expect(countRows(sqlite, threadId).checkpoints).toBe(before + 1);
      // The thread stays idle: a run after it starts from the replaced state.
      await startRun(testRunDeps(accessor, sequentialIds(`${config.mode}x`)), { threadId, content: "fresh" });
      const types = (await accessor.getState(threadId))!.values.messages.map((m) => m.getType());
      expect(types).toEqual(["human", "ai", "tool", "ai"]);
    }
  });
});

// The mode gate on both savers (PostgreSQL with TEST_POSTGRES_URL): one
// database, a process in one mode after a process in the other ("reopen").
describeEachEngine("checkpoint accessor mode gate", ({ db }) => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  async function seed(config: typeof FULL | typeof DELTA, turns: number) {
    h = await openEngineHarness(db(), config);
    const { threadId } = await createThread(h.deps);
    for (let i = 0; i < turns; i += 1) await startRun(h.deps, { threadId, content: `question ${i}` });
    return { h, threadId };
  }

  it("[CCM-06] a full process opening a delta thread fails with a 409 mismatch naming the thread, before any read or write", async () => {
    const { h, threadId } = await seed(DELTA, 2);
    const before = await h.store.threadTotals(threadId);
    h.reopen(FULL);
    // One at a time: each attempt starts only once the previous one's rejection is handled.
    for (const attempt of [
      () => h.accessor.getState(threadId),
      () => h.accessor.history(threadId, 5),
      () => h.accessor.replace(threadId, {}),
      () => startRun(h.deps, { threadId, content: "more" }),
    ]) {
      const error = await rejection(attempt());
      expect(isAppError(error) && error.code).toBe("checkpoint_mode_mismatch");
      expect(ERROR_STATUS.checkpoint_mode_mismatch).toBe(409);
      expect((error as Error).message).toContain(threadId);
    }
    expect(await h.store.threadTotals(threadId)).toEqual(before);
  });

  it("[CCM-07] a delta process reads full threads transparently and continues them", async () => {
    const { h, threadId } = await seed(FULL, 3);
    const fullView = viewValues((await h.accessor.getState(threadId))!.values);
    h.reopen(DELTA);
    const seen = await h.accessor.getState(threadId);
    expect(viewValues(seen!.values)).toEqual(fullView);
    await startRun(h.deps, { threadId, content: "after migration" });
    const after = viewValues((await h.accessor.getState(threadId))!.values);
    expect(after.messages.slice(0, fullView.messages.length)).toEqual(fullView.messages);
    expect(after.messages.at(-1)?.content).toContain("after migration");
  });
});
