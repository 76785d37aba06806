// Branch and regenerate the first answer of a long thread, built through the
// real agent graph and run API (tiny turns: no tool call), in both modes.
// 150 turns is about 750 raw checkpoints, past the old 400-checkpoint walk
// budget (which failed at 90 turns). Building is quadratic in full mode, so
// 1,000 turns (LINEAGE_TEST_TURNS=1000) takes many minutes on a loaded
// 2-core machine; scripts/bench/checkpoint-lineage.ts measures the sizes.
import { describe, expect, it } from "vitest";
import type { AIMessage } from "@langchain/core/messages";
import { startRun } from "./runs";
import { branch, createThread, regenerate } from "./threads";
import { checkpointTestEnvPerTest, DELTA, FULL, sequentialIds, testRunDeps } from "./test-support";

const TURNS = Number(process.env.LINEAGE_TEST_TURNS ?? 150);
const env = checkpointTestEnvPerTest();

describe.each([
  ["full", FULL],
  ["delta", DELTA],
] as const)("lineage on a long thread (%s mode)", (_name, config) => {
  it(`[CCM-14] branch and regenerate of the first answer of a ${TURNS}-turn thread succeed`, { timeout: 600_000 }, async () => {
    const { accessor } = env.open(config);
    const deps = testRunDeps(accessor, sequentialIds(), 0);
    const { threadId } = await createThread(deps);
    for (let i = 0; i < TURNS; i += 1) expect((await startRun(deps, { threadId, content: `q${i}` })).status).toBe("success");
    const messages = (await accessor.getState(threadId))!.values.messages;
    expect(messages).toHaveLength(2 * TURNS);
    const first = messages.find((m) => m.getType() === "ai" && !(m as AIMessage).tool_calls?.length)!;

    const branched = await branch(deps, threadId, String(first.id));
    const copy = (await accessor.getState(branched.threadId))!.values.messages;
    expect(copy.map((m) => m.id)).toEqual(messages.slice(0, 2).map((m) => m.id));

    const regenerated = await regenerate(deps, threadId, String(first.id));
    expect(regenerated.status).toBe("success");
    const after = (await accessor.getState(threadId))!.values.messages;
    expect(after.map((m) => m.getType())).toEqual(["human", "ai"]);
    expect(after[0]!.content).toBe("q0");
    expect(after[1]!.id).not.toBe(first.id);
  });
});
