// Demo agent threads, written through the real thread verbs (createThread,
// startRun, regenerate, branch: the code behind /api/v1/threads) so every
// checkpoint is one the server itself would write in the configured mode:
//  - a long thread (about 100 turns);
//  - a thread whose answers were regenerated (in full mode the replaced
//    turns stay behind as abandoned branches that cleanup reclaims; delta
//    processes linearize and leave none);
//  - a thread branched from another one's answer, then continued;
//  - a thread written before bounded admission existed (its runs' duration
//    leaves became chain links that cleanup grafts away).
// Tool payloads stay small: the point is the shape of the threads.
import type { RunDeps } from "@/server/checkpoints/runs";
import { startRun } from "@/server/checkpoints/runs";
import { branch, createThread, readThreadState, regenerate } from "@/server/checkpoints/threads";

export type AgentThreadsSize = "demo" | "small";

const SIZES: Record<AgentThreadsSize, { longTurns: number; regenTurns: number; branchTurns: number; legacyTurns: number }> = {
  demo: { longTurns: 100, regenTurns: 12, branchTurns: 6, legacyTurns: 10 },
  small: { longTurns: 8, regenTurns: 5, branchTurns: 3, legacyTurns: 3 },
};

const PROMPTS = [
  "List the files in the repository",
  "Run the unit tests",
  "Why does the parser test fail?",
  "Fix the off-by-one error in the tokenizer",
  "Add a test for empty input",
  "Update the changelog",
  "Check the lint warnings",
  "Refactor the config loader",
  "Explain the retry policy",
  "Bump the SQLite driver",
  "Summarize today's changes",
  "Open a pull request description",
] as const;

export type SeededThread = { threadId: string; role: "long" | "regenerated" | "branched" | "legacy"; turns: number };
export type AgentThreadsResult = { threads: SeededThread[]; runs: number };

function prompt(i: number): string {
  return `${PROMPTS[i % PROMPTS.length]} (step ${i + 1})`;
}

async function runTurns(deps: RunDeps, threadId: string, from: number, count: number): Promise<number> {
  for (let i = from; i < from + count; i += 1) {
    const run = await startRun(deps, { threadId, content: prompt(i) });
    if (run.status !== "success") throw new Error(`demo run ${i + 1} on a seeded thread ended ${run.status}`);
  }
  return count;
}

/** Assistant replies of the thread's current conversation (not tool calls), oldest first. */
async function answers(deps: RunDeps, threadId: string): Promise<string[]> {
  const state = await readThreadState(deps, threadId);
  const messages = state.values.messages;
  return messages.filter((m, i) => m.type === "ai" && messages[i + 1]?.type !== "tool").map((m) => m.id);
}

async function regenerateAnswer(deps: RunDeps, threadId: string, ordinal: number): Promise<void> {
  const id = (await answers(deps, threadId))[ordinal];
  if (!id) throw new Error(`demo thread has no answer ${ordinal + 1}`);
  const run = await regenerate(deps, threadId, id);
  if (run.status !== "success") throw new Error(`demo regenerate ended ${run.status}`);
}

/**
 * Seeds the demo threads. `deps` is the thread service the routes use;
 * the legacy thread runs on the same deps without the admission hook.
 */
export async function seedAgentThreads(deps: RunDeps, size: AgentThreadsSize = "demo"): Promise<AgentThreadsResult> {
  const plan = SIZES[size];
  const threads: SeededThread[] = [];
  let runs = 0;

  const long = (await createThread(deps)).threadId;
  runs += await runTurns(deps, long, 0, plan.longTurns);
  threads.push({ threadId: long, role: "long", turns: plan.longTurns });

  // Regenerate an early answer (its later turns leave the conversation), go
  // on, then regenerate the newest answer twice, as a user retrying would.
  const regen = (await createThread(deps)).threadId;
  runs += await runTurns(deps, regen, 0, plan.regenTurns);
  await regenerateAnswer(deps, regen, 2);
  runs += 1 + (await runTurns(deps, regen, 3, 2));
  for (let i = 0; i < 2; i += 1) {
    const all = await answers(deps, regen);
    await regenerateAnswer(deps, regen, all.length - 1);
    runs += 1;
  }
  threads.push({ threadId: regen, role: "regenerated", turns: (await answers(deps, regen)).length });

  // A branch from the second answer of the regenerated thread, continued on its own.
  const second = (await answers(deps, regen))[1]!;
  const branched = (await branch(deps, regen, second)).threadId;
  runs += await runTurns(deps, branched, 2, plan.branchTurns);
  threads.push({ threadId: branched, role: "branched", turns: 2 + plan.branchTurns });

  const legacyDeps: RunDeps = { ...deps, admit: undefined };
  const legacy = (await createThread(legacyDeps)).threadId;
  runs += await runTurns(legacyDeps, legacy, 0, plan.legacyTurns);
  threads.push({ threadId: legacy, role: "legacy", turns: plan.legacyTurns });

  return { threads, runs };
}
