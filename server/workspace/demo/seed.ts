// The demo workspace: ~200 tasks over the 18 months before `nowMs`, every
// normalized kind, a few multi-MB outputs, and a set of realistic tasks that
// compaction must protect. Deterministic: same seed and nowMs, same rows.
// Writes go through the workspace write modules like any other import.
import { DAY, OFFSETS } from "./demo-time";
import { createRng } from "./prng";
import { SCENARIOS } from "./scenarios";
import { planTask, type PlannedTask, type ToolPick } from "./task-plan";
import { httpRequest, readFile, shellExec } from "./tool-payloads";
import { appendMessage } from "../message-writes";
import type { WorkspaceStore } from "../store";

export const DEMO_TASK_COUNT = 200;
const SPAN_MS = 548 * DAY; // 18 months
const MB = 1024 * 1024;

// A few huge outputs, as real installs have: verbose installs, a dumped
// lockfile, a large API export.
const BIG_OUTPUTS: readonly ToolPick[] = [
  (r, repo) => shellExec(r, repo, { stdoutBytes: 5 * MB + 300_000 }),
  (r, repo) => readFile(r, repo, { lines: 48_000 }),
  (r, repo) => httpRequest(r, repo, { bodyBytes: 3 * MB }),
  (r, repo) => shellExec(r, repo, { stdoutBytes: 2 * MB + 100_000 }),
];

export type DemoSeedResult = { tasks: number; messages: number; bytes: number };

function planWorkspace(seed: number, nowMs: number): PlannedTask[] {
  const rng = createRng(seed, "workspace");
  const starts = Array.from({ length: DEMO_TASK_COUNT }, () => nowMs - Math.floor(rng.next() * SPAN_MS) - DAY).sort((a, b) => a - b);
  const bigAt = new Map(BIG_OUTPUTS.map((pick, i) => [Math.floor(((i + 0.5) * DEMO_TASK_COUNT) / (BIG_OUTPUTS.length + 1)), pick]));
  const tasks = starts.map((startMs, index) =>
    planTask(createRng(seed, `task-${index}`), {
      index,
      startMs,
      offsetMinutes: rng.chance(0.15) ? rng.pick(OFFSETS) : 0,
      bigOutput: bigAt.get(index) ?? null,
    }),
  );
  // Protected tasks come from the old ones (well past a 3-month policy) so
  // each is held back only by the reason it demonstrates.
  const old = tasks.filter((t, i) => starts[i]! < nowMs - 150 * DAY && !bigAt.has(i));
  SCENARIOS.forEach((scenario, k) => {
    const task = old[(7 + k * 9) % old.length]!;
    scenario.apply(task, { rng: createRng(seed, `scenario-${scenario.name}`), nowMs });
    task.scenario = scenario.name;
  });
  return tasks;
}

async function writeTask(store: WorkspaceStore, task: PlannedTask, totals: DemoSeedResult): Promise<void> {
  await store.insertTask(task);
  for (const session of task.sessions) {
    await store.insertSession({ ...session, taskId: task.id });
    for (const turn of session.turns) await store.insertTurn({ ...turn, sessionId: session.id });
    for (const m of session.messages) {
      const metadata = JSON.stringify(m.metadata);
      await appendMessage(store, {
        id: m.id,
        sessionId: session.id,
        turnId: m.turnId,
        authorType: m.authorType,
        type: m.type,
        content: m.content,
        metadata,
        createdAt: m.createdAt,
        updatedAt: m.updatedAt,
      });
      totals.messages++;
      totals.bytes += Buffer.byteLength(metadata, "utf8") + Buffer.byteLength(m.content, "utf8");
    }
    for (const q of session.queuedMessages) await store.insertQueuedMessage({ ...q, sessionId: session.id });
    for (const r of session.runs) await store.insertRun({ ...r, sessionId: session.id });
  }
  totals.tasks++;
}

/** Seeds the demo workspace in one transaction; callers check the DB is empty. */
export async function seedDemoWorkspace(options: { store: WorkspaceStore; seed: number; nowMs: number }): Promise<DemoSeedResult> {
  const tasks = planWorkspace(options.seed, options.nowMs);
  const totals: DemoSeedResult = { tasks: 0, messages: 0, bytes: 0 };
  await options.store.writeTransaction(async (tx) => {
    for (const task of tasks) await writeTask(tx, task, totals);
  });
  return totals;
}

/** The plan without writing it (tests inspect scenarios and repos). */
export function planDemoWorkspace(seed: number, nowMs: number): PlannedTask[] {
  return planWorkspace(seed, nowMs);
}
