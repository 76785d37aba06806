// Branch and regenerate the first answer of a 1,000-turn thread, in both
// modes, with admission cleanup on (production's set-up). The first two and
// the last two turns are agent runs through the run API; the 996 between are
// appended as real checkpoints, one per turn (long-thread-test-support.ts),
// so the path from the head to the root is over 1,000 checkpoints deep, far
// past the old 400-checkpoint walk budget (which failed at 90 turns).
import { describe, expect, it } from "vitest";
import type { AIMessage } from "@langchain/core/messages";
import { admissionHook } from "./cleanup/admission-cleanup";
import { appendTurns } from "./long-thread-test-support";
import { startRun } from "./runs";
import { branch, createThread, regenerate } from "./threads";
import { checkpointTestEnvPerTest, DELTA, FULL, sequentialIds, testRunDeps } from "./test-support";

const TURNS = 1000;
const env = checkpointTestEnvPerTest();

describe.each([
  ["full", FULL],
  ["delta", DELTA],
] as const)("lineage on a long thread (%s mode)", (_name, config) => {
  it(`[CCM-12] branch and regenerate of the first answer of a ${TURNS}-turn thread succeed`, { timeout: 120_000 }, async () => {
    const { accessor, store } = env.open(config);
    const deps = { ...testRunDeps(accessor, sequentialIds(), 0), admit: admissionHook({ store }) };
    const { threadId } = await createThread(deps);
    for (let i = 0; i < 2; i += 1) expect((await startRun(deps, { threadId, content: `first ${i}` })).status).toBe("success");
    await appendTurns({ accessor, threadId, turns: TURNS - 4, newId: deps.newId });
    for (let i = 0; i < 2; i += 1) expect((await startRun(deps, { threadId, content: `last ${i}` })).status).toBe("success");
    const messages = (await accessor.getState(threadId))!.values.messages;
    expect(messages).toHaveLength(2 * TURNS);
    expect((await store.threadTotals(threadId)).checkpoints).toBeGreaterThan(TURNS);
    const first = messages.find((m) => m.getType() === "ai" && !(m as AIMessage).tool_calls?.length)!;

    const branched = await branch(deps, threadId, String(first.id));
    const copy = (await accessor.getState(branched.threadId))!.values.messages;
    expect(copy.map((m) => m.id)).toEqual(messages.slice(0, 2).map((m) => m.id));

    const regenerated = await regenerate(deps, threadId, String(first.id));
    expect(regenerated.status).toBe("success");
    const after = (await accessor.getState(threadId))!.values.messages;
    expect(after.map((m) => m.getType())).toEqual(["human", "ai"]);
    expect(after[0]!.content).toBe("first 0");
    expect(after[1]!.id).not.toBe(first.id);
  });
});
