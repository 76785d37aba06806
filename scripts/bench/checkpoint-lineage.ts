// Branch-from-first-answer time on long threads, both modes, against reading
// the head state once in the same run (the baseline). One thread per mode,
// admission cleanup on (production's set-up), tiny turns (no tool call). With
// `--build runs` every turn is an agent run through the run API (about four
// checkpoints per turn; quadratic in full mode, many minutes at 1,000 turns
// on a loaded 2-core machine); with `--build append` (default) the first two
// turns and the last five before each measurement are agent runs and the
// turns between are appended as real checkpoints, one per turn
// (server/checkpoints/long-thread-test-support.ts). At each size the head
// state is read once, then the thread is branched from its first answer and
// regenerate's replay base lookup for the first answer is timed as well.
// Prints one JSON object per row, then a summary object and one summary line.
//
//   npx tsx --conditions=react-server scripts/bench/checkpoint-lineage.ts [--turns 100,500,1000] [--modes full,delta] [--frequency 10] [--build append|runs]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { AIMessage } from "@langchain/core/messages";
import { openSqliteDb } from "@/server/db/sqlite-db";
import { systemClock } from "@/server/clock";
import { createCheckpointAccessor } from "@/server/checkpoints/accessor";
import { admissionHook } from "@/server/checkpoints/cleanup/admission-cleanup";
import { findCheckpointBeforeMessage } from "@/server/checkpoints/lineage";
import type { ChannelMode, ModeConfig } from "@/server/checkpoints/mode";
import { startRun, type RunDeps } from "@/server/checkpoints/runs";
import { openSqliteCheckpoints } from "@/server/checkpoints/sqlite-saver";
import { createThreadLocks } from "@/server/checkpoints/thread-lock";
import { branch, createThread } from "@/server/checkpoints/threads";
import { appendTurns } from "@/server/checkpoints/long-thread-test-support";

type Args = { turns: number[]; modes: ChannelMode[]; frequency: number; build: "append" | "runs" };

function parseArgs(argv: string[]): Args {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const turns = (value("--turns") ?? "100,500,1000").split(",").map(Number);
  const modes = (value("--modes") ?? "full,delta").split(",") as ChannelMode[];
  const frequency = Number(value("--frequency") ?? 10);
  if (turns.some((n) => !Number.isInteger(n) || n < 1) || modes.some((m) => m !== "full" && m !== "delta") || !(frequency > 0)) {
    throw new Error("usage: --turns 100,500,1000 --modes full,delta --frequency 10");
  }
  const build = value("--build") ?? "append";
  if (build !== "append" && build !== "runs") throw new Error("--build append|runs");
  return { turns: [...turns].sort((a, b) => a - b), modes, frequency, build };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

function sequentialIds(): () => string {
  let n = 0;
  return () => `l-${String(++n).padStart(7, "0")}`;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function runMode(mode: ChannelMode, args: Args, dir: string): Promise<Record<string, unknown>[]> {
  const config: ModeConfig = { mode, snapshotFrequency: args.frequency };
  const handle = openSqliteDb({ file: path.join(dir, `${mode}.db`) });
  const { saver, store } = openSqliteCheckpoints({ db: handle, mode });
  const accessor = createCheckpointAccessor({ saver, config });
  const deps: RunDeps = { accessor, clock: systemClock, newId: sequentialIds(), locks: createThreadLocks(), toolPayloadBytes: 0, admit: admissionHook({ store }) };
  const { threadId } = await createThread(deps);
  const rows: Record<string, unknown>[] = [];
  let done = 0;
  const buildStart = performance.now();
  for (const turns of args.turns) {
    const runTurn = async () => {
      const r = await startRun(deps, { threadId, content: `turn ${done}` });
      if (r.status !== "success") throw new Error(`turn ${done} failed`);
      done += 1;
    };
    if (args.build === "append") {
      while (done < Math.min(2, turns)) await runTurn();
      const appended = Math.max(0, turns - 5 - done);
      await appendTurns({ accessor, threadId, turns: appended, newId: deps.newId });
      done += appended;
    }
    while (done < turns) await runTurn();
    const head = await timed(() => accessor.getState(threadId));
    const messages = head.value!.values.messages;
    const firstAnswer = messages.find((m) => m.getType() === "ai" && !(m as AIMessage).tool_calls?.length)!;
    const firstHuman = messages.find((m) => m.getType() === "human")!;
    const branched = await timed(() => branch(deps, threadId, String(firstAnswer.id)));
    const regenBase = await timed(() => findCheckpointBeforeMessage({ accessor, threadId, messageId: String(firstHuman.id) }));
    if (!regenBase.value) throw new Error("no replay base for the first answer");
    const checkpoints = (await store.threadTotals(threadId)).checkpoints;
    rows.push({
      bench: "checkpoint-lineage",
      mode,
      snapshotFrequency: mode === "delta" ? args.frequency : null,
      build: args.build,
      turns,
      checkpoints,
      messages: messages.length,
      headStateMs: round(head.ms),
      branchFirstAnswerMs: round(branched.ms),
      regenerateBaseMs: round(regenBase.ms),
      branchOverHead: round(branched.ms / head.ms),
      buildMsSoFar: round(performance.now() - buildStart),
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
  handle.closeNow();
  return rows;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-lineage-bench-"));
  try {
    const rows: Record<string, unknown>[] = [];
    for (const mode of args.modes) rows.push(...(await runMode(mode, args, dir)));
    const largest = Math.max(...args.turns);
    const atLargest = rows.filter((r) => r.turns === largest);
    console.log(JSON.stringify({ bench: "checkpoint-lineage", summary: true, turns: args.turns, atLargest }));
    console.log(
      `checkpoint-lineage: branch from the first answer at ${largest} turns = ` +
        atLargest.map((r) => `${String(r.mode)} ${String(r.branchFirstAnswerMs)} ms (${String(r.branchOverHead)}x one head read of ${String(r.headStateMs)} ms, ${String(r.checkpoints)} checkpoints)`).join("; "),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
