// Demo agent threads, written through the real thread verbs (createThread,
// startRun, regenerate, branch: the code behind /api/v1/threads) so every
// checkpoint is one the server itself would write in the configured mode:
//  - a long thread (about 100 turns);
//  - a thread whose answers were regenerated (in full mode the replaced
//    turns stay behind as abandoned branches that cleanup reclaims; delta
//    processes linearize and leave none). It is written as if a month and
//    more ago, so the handles its runs handed out are past their time to
//    live (CHECKPOINT_HANDLE_TTL_DAYS) and the abandoned tips reclaimable;
//    the other threads' handles are fresh and shown as held;
//  - a thread branched from another one's answer, then continued;
//  - a thread written before bounded admission existed (its runs' duration
//    leaves became chain links that cleanup grafts away).
// Tool payloads stay small: the point is the shape of the threads.
import type { RunDeps } from "@/server/checkpoints/runs";
import { startRun } from "@/server/checkpoints/runs";
import { DAY_MS, DEFAULT_HANDLE_TTL_DAYS } from "@/server/checkpoints/handles";
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

/** Each thread starts its prompts at its own place in the list, so the threads' titles (their first prompt) differ. */
function prompt(i: number, offset = 0): string {
  return `${PROMPTS[(i + offset) % PROMPTS.length]} (step ${i + 1})`;
}

async function runTurns(deps: RunDeps, threadId: string, from: number, count: number, offset = 0): Promise<number> {
  for (let i = from; i < from + count; i += 1) {
    const run = await startRun(deps, { threadId, content: prompt(i, offset) });
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
  const ttlDays = deps.handleTtlDays ?? DEFAULT_HANDLE_TTL_DAYS;
  const pastDeps: RunDeps = { ...deps, clock: { now: () => deps.clock.now() - (ttlDays + 1) * DAY_MS } };
  const regen = (await createThread(pastDeps)).threadId;
  runs += await runTurns(pastDeps, regen, 0, plan.regenTurns, 2);
  await regenerateAnswer(pastDeps, regen, 2);
  runs += 1 + (await runTurns(pastDeps, regen, 3, 2, 2));
  for (let i = 0; i < 2; i += 1) {
    const all = await answers(pastDeps, regen);
    await regenerateAnswer(pastDeps, regen, all.length - 1);
    runs += 1;
  }
  threads.push({ threadId: regen, role: "regenerated", turns: (await answers(deps, regen)).length });

  // A branch from the second answer of the regenerated thread, continued on its own.
  const second = (await answers(deps, regen))[1]!;
  const branched = (await branch(deps, regen, second)).threadId;
  runs += await runTurns(deps, branched, 2, plan.branchTurns, 2);
  threads.push({ threadId: branched, role: "branched", turns: 2 + plan.branchTurns });

  const legacyDeps: RunDeps = { ...deps, admit: undefined };
  const legacy = (await createThread(legacyDeps)).threadId;
  runs += await runTurns(legacyDeps, legacy, 0, plan.legacyTurns, 9);
  threads.push({ threadId: legacy, role: "legacy", turns: plan.legacyTurns });

  return { threads, runs };
}
