// Regenerate and branch from messages a resume brought back. In delta mode a
// resume from an old run handle is written onto the head (the handle's state
// replaces the conversation), so a message can leave the head's path (a
// regenerate replaced it) and come back further up (the resume copied it
// back): the replay base must still be the checkpoint before the message's
// own run, found through the run that minted it, and a lineage that really
// is broken must still fail closed. Both engines, both modes.
import { afterEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "@/server/engines-test-support";
import { isAppError } from "@/server/errors";
import { MODES, openEngineHarness, replies, messageIds, type Harness } from "./cleanup/contract-support";
import { startRun } from "./runs";
import { branch, createThread, regenerate } from "./threads";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

/** Message contents of the head conversation that are human questions. */
async function questions(threadId: string): Promise<string[]> {
  const s = await h!.accessor.getState(threadId);
  return (s?.values.messages ?? []).filter((m) => m.getType() === "human").map((m) => String(m.content));
}

describeEachEngine("lineage after a resume", ({ db }) => describe.each(MODES)("%s mode", (_name, config) => {
  /**
   * Three runs; run 1's answer regenerated (runs 1-2 leave the head), a
   * resume from run 2's handle (they come back), run 2's answer regenerated
   * and run 2's handle resumed once more: the head's path now holds run 1's
   * messages in three separate stretches.
   */
  async function resumedThread(): Promise<{ threadId: string; kept: string[]; handle: string }> {
    h = await openEngineHarness(db(), config);
    const { threadId } = await createThread(h.deps);
    await startRun(h.deps, { threadId, content: "question 1" });
    const second = await startRun(h.deps, { threadId, content: "question 2" });
    await startRun(h.deps, { threadId, content: "question 3" });
    const handle = second.checkpointId!;
    const kept = await messageIds(h, threadId, handle);
    expect(kept).toHaveLength(8);
    const [firstAnswer] = await replies(h, threadId);
    expect((await regenerate(h.deps, threadId, firstAnswer!)).status).toBe("success");
    // Run 1's and run 2's messages are gone from the head conversation ...
    expect((await messageIds(h, threadId)).some((id) => kept.includes(id))).toBe(false);
    // ... and the resume brings them back (same ids) with a new turn after them.
    const resume = async () => {
      expect((await startRun(h!.deps, { threadId, content: "after the resume", checkpointId: handle })).status).toBe("success");
      expect((await messageIds(h!, threadId)).slice(0, 8)).toEqual(kept);
    };
    await resume();
    const [, secondAnswer] = await replies(h, threadId);
    expect(secondAnswer).toBe(kept[7]);
    expect((await regenerate(h.deps, threadId, secondAnswer!)).status).toBe("success");
    expect((await messageIds(h, threadId)).slice(0, 4)).toEqual(kept.slice(0, 4));
    await resume();
    return { threadId, kept, handle };
  }

  it("[CCM-12] regenerating an answer the resume brought back replays from the checkpoint before its question", async () => {
    const { threadId, kept, handle } = await resumedThread();
    // Run 1's answer: the base is the thread's empty start.
    const [firstAnswer] = await replies(h!, threadId);
    expect(firstAnswer).toBe(kept[3]);
    expect((await regenerate(h!.deps, threadId, firstAnswer!)).status).toBe("success");
    const afterFirst = await messageIds(h!, threadId);
    expect(afterFirst).toHaveLength(4);
    expect(afterFirst.some((id) => kept.includes(id))).toBe(false);
    expect(await questions(threadId)).toEqual(["question 1"]);
    // Run 2's answer, after another resume: the base holds run 1's turn.
    expect((await startRun(h!.deps, { threadId, content: "resumed again", checkpointId: handle })).status).toBe("success");
    const [, secondAnswer] = await replies(h!, threadId);
    expect(secondAnswer).toBe(kept[7]);
    expect((await regenerate(h!.deps, threadId, secondAnswer!)).status).toBe("success");
    const afterSecond = await messageIds(h!, threadId);
    expect(afterSecond).toHaveLength(8);
    expect(afterSecond.slice(0, 4)).toEqual(kept.slice(0, 4));
    expect(afterSecond.slice(4).some((id) => kept.includes(id))).toBe(false);
    expect(await questions(threadId)).toEqual(["question 1", "question 2"]);
  });

  it("[CCM-12] branching from an answer the resume brought back copies the conversation through it", async () => {
    const { threadId, kept } = await resumedThread();
    // The turn after run 1's answer (run 2's question) came back with the resume too.
    const [firstAnswer] = await replies(h!, threadId);
    const made = await branch(h!.deps, threadId, firstAnswer!);
    expect(await messageIds(h!, made.threadId)).toEqual(kept.slice(0, 4));
    // The branch goes on from there.
    expect((await startRun(h!.deps, { threadId: made.threadId, content: "in the branch" })).status).toBe("success");
    expect(await questions(made.threadId)).toEqual(["question 1", "in the branch"]);
  });

  it("[CCM-13] a run record that does not lead to the message is not trusted: the strict walk decides (delta fails closed, 409)", async () => {
    const { threadId } = await resumedThread();
    const links = (await h!.accessor.parentLinks(threadId))!;
    const root = [...links].find(([, parent]) => parent === null)![0];
    const [firstAnswer] = await replies(h!, threadId);
    const firstRun = (await h!.store.listRuns(threadId))[0]!;
    // Run 1's recorded handle pointed at a checkpoint without the message, then at none.
    for (const wrong of [root, "no-such-checkpoint"]) {
      await h!.run("UPDATE checkpoint_runs SET handle_id = ? WHERE thread_id = ? AND run_id = ?", [wrong, threadId, firstRun.runId]);
      const outcome = await regenerate(h!.deps, threadId, firstAnswer!).then(
        (r) => r.status,
        (error: unknown) => (isAppError(error) ? error.code : String(error)),
      );
      // Full mode forks on resume, so its path holds the message once: the strict walk finds the base.
      // Delta's path holds it twice (the resume copied it back): without the run's handle that is a broken lineage.
      expect(outcome).toBe(config.mode === "full" ? "success" : "checkpoint_lineage_integrity");
      if (config.mode === "full") return;
    }
  });
}));
