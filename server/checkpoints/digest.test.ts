import { describe, expect, it } from "vitest";
import type { ModeConfig } from "./mode";
import { digestValues } from "./digest";
import { startRun } from "./runs";
import { branch, createThread, regenerate } from "./threads";
import { createCheckpointTestEnv, sequentialIds, testRunDeps } from "./test-support";

/** One script: turns, a regenerate, a branch with its own turns, and a resume. */
async function playScript(config: ModeConfig): Promise<string[]> {
  // Each mode gets its own database file.
  const env = createCheckpointTestEnv();
  try {
    const { accessor } = env.open(config);
    const deps = testRunDeps(accessor, sequentialIds("s"), 48);
    const { threadId } = await createThread(deps);
    const checkpoints: string[] = [];
    for (let i = 0; i < 12; i += 1) checkpoints.push((await startRun(deps, { threadId, content: `turn ${i}` })).checkpointId!);
    const answers = (await accessor.getState(threadId))!.values.messages.filter((m) => m.getType() === "ai" && String(m.content) !== "");
    await regenerate(deps, threadId, String(answers.at(-1)!.id));
    const { threadId: other } = await branch(deps, threadId, String(answers[5]!.id));
    for (let i = 0; i < 4; i += 1) await startRun(deps, { threadId: other, content: `branch turn ${i}` });
    await startRun(deps, { threadId, content: "resumed", checkpointId: checkpoints[7]! });
    const reloaded = env.open(config).accessor;
    return [digestValues((await reloaded.getState(threadId))!.values), digestValues((await reloaded.getState(other))!.values)];
  } finally {
    env.close();
  }
}

describe("mode parity", () => {
  it("full and delta produce identical materialized conversations for the same script", async () => {
    const full = await playScript({ mode: "full", snapshotFrequency: 10 });
    for (const snapshotFrequency of [1, 3, 10]) {
      expect(await playScript({ mode: "delta", snapshotFrequency })).toEqual(full);
    }
  });
});
