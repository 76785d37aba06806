// Builds one ordinary demo task in memory: sessions of turns, each turn a
// user prompt, some agent thinking, a run of tool calls and a reply. Times
// advance realistically from the task's start; text timestamps are written
// in the task's offset. Scenarios (scenarios.ts) then bend a few tasks into
// states that protect them from compaction.
import { REPOS, USER_PROMPTS, type Repo } from "./corpus";
import { DAY, formatAt, MINUTE } from "./demo-time";
import type { Rng } from "./prng";
import * as special from "./special-payloads";
import { codeSearch, genericTool, httpRequest, modifyFile, readFile, shellExec, type DemoMessage } from "./tool-payloads";

export type PlannedMessage = DemoMessage & { id: string; turnId: string | null; createdAt: string; updatedAt: string };
export type PlannedTurn = { id: string; startedAt: string; completedAt: string | null };
export type PlannedSession = {
  id: string;
  state: string;
  startedAt: string | null;
  updatedAt: string;
  completedAt: string | null;
  turns: PlannedTurn[];
  messages: PlannedMessage[];
  queuedMessages: { id: string; content: string; queuedAt: string }[];
  runs: { id: string; state: string }[];
};
export type PlannedTask = {
  id: string;
  title: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  queuedForStep: boolean;
  sessions: PlannedSession[];
  /** Why this task is protected (demo coverage), or null for an ordinary task. */
  scenario: string | null;
  lastActivityMs: number;
};

export type ToolPick = (rng: Rng, repo: Repo) => DemoMessage;

/** Every tool message shape the demo shows; a task always gets its rotation slot. */
const shellPick: ToolPick = (r, repo) => shellExec(r, repo);
const readPick: ToolPick = (r, repo) => readFile(r, repo);
const modifyPick: ToolPick = (r, repo) => modifyFile(r, repo);
const searchPick: ToolPick = (r, repo) => codeSearch(r, repo);
const httpPick: ToolPick = (r, repo) => httpRequest(r, repo);
const textPick: ToolPick = (r, repo) => genericTool(r, repo, "text");

export const TOOL_ROTATION: readonly ToolPick[] = [
  shellPick,
  readPick,
  modifyPick,
  searchPick,
  httpPick,
  textPick,
  (r, repo) => genericTool(r, repo, "string"),
  (r, repo) => genericTool(r, repo, "resource"),
  (r, repo) => genericTool(r, repo, "image"),
  (r, repo) => genericTool(r, repo, "structured"),
  (r, repo) => special.createTaskTool(r, repo),
  (r, repo) => special.subagentTask(r, repo),
  (r, repo) => special.showPlan(r, repo),
  (r) => special.manageTodos(r),
  (r) => special.miscTool(r),
  (r, repo) => special.backgroundShell(r, repo),
  (r, repo) => special.monitorTool(r, repo),
  (r, repo) => special.controlTool(r, repo),
  (r, repo) => special.mismatchedKind(r, repo),
];

// The everyday mix: mostly shell, reads and edits.
const EVERYDAY: readonly ToolPick[] = [shellPick, shellPick, readPick, readPick, modifyPick, searchPick, httpPick, textPick];

export type TaskOptions = {
  index: number;
  startMs: number;
  offsetMinutes: number;
  /** A multi-MB tool output to include, if any. */
  bigOutput: ToolPick | null;
};

export function planTask(rng: Rng, options: TaskOptions): PlannedTask {
  const repo = rng.pick(REPOS);
  const title = rng.pick(repo.titles);
  const taskId = `task-${String(options.index).padStart(3, "0")}-${rng.hex(6)}`;
  const at = (ms: number) => formatAt(ms, options.offsetMinutes);
  let clock = options.startMs;
  const tick = (minMs: number, maxMs: number) => (clock += rng.int(minMs, maxMs));
  let seq = 0;
  const sessions: PlannedSession[] = [];
  const sessionCount = rng.chance(0.2) ? 2 : 1;

  for (let s = 0; s < sessionCount; s++) {
    if (s > 0) tick(DAY / 4, 3 * DAY); // resumed later
    const sessionId = `${taskId}-s${s + 1}`;
    const sessionStart = clock;
    const turns: PlannedTurn[] = [];
    const messages: PlannedMessage[] = [];
    const push = (m: DemoMessage, turnId: string) => {
      const created = tick(5_000, 3 * MINUTE);
      seq++;
      messages.push({ ...m, id: `${taskId}-m${String(seq).padStart(3, "0")}`, turnId, createdAt: at(created), updatedAt: at(created + rng.int(0, 4_000)) });
    };
    const turnCount = rng.int(1, 3);
    for (let u = 0; u < turnCount; u++) {
      const turnId = `${sessionId}-u${u + 1}`;
      const turnStart = tick(1_000, 10 * MINUTE);
      push(u === 0 && s === 0 ? special.userMessage(rng, title) : { ...special.userMessage(rng, "Follow-up"), content: rng.pick(USER_PROMPTS) }, turnId);
      if (rng.chance(0.5)) push(special.thinking(rng), turnId);
      if (u === 0 && rng.chance(0.3)) push(special.showPlan(rng, repo), turnId);
      if (rng.chance(0.2)) push(special.manageTodos(rng), turnId);
      if (u === 0 && s === 0) push(TOOL_ROTATION[options.index % TOOL_ROTATION.length]!(rng, repo), turnId);
      for (let k = rng.int(2, 7); k > 0; k--) push(rng.pick(EVERYDAY)(rng, repo), turnId);
      if (u === 0 && s === 0 && options.bigOutput) push(options.bigOutput(rng, repo), turnId);
      if (rng.chance(0.15)) push(special.smallMessage(rng, rng.pick(["progress", "log", "status", "error", "content"] as const)), turnId);
      if (rng.chance(0.1)) push(special.inputRequest(rng, rng.pick(["permission_request", "clarification_request"] as const), rng.pick(["approved", "denied", "answered"])), turnId);
      push(special.agentReply(rng), turnId);
      turns.push({ id: turnId, startedAt: at(turnStart), completedAt: at(tick(1_000, 30_000)) });
    }
    const end = tick(5_000, 60_000);
    const state = rng.chance(0.88) ? "COMPLETED" : rng.pick(["FAILED", "CANCELLED"]);
    sessions.push({
      id: sessionId,
      state,
      startedAt: at(sessionStart),
      updatedAt: at(end),
      completedAt: at(end),
      turns,
      messages,
      queuedMessages: [],
      runs: [{ id: `${sessionId}-r1`, state: state === "COMPLETED" ? "SUCCEEDED" : state }],
    });
  }
  const updated = tick(MINUTE, 2 * DAY);
  const last = sessions[sessions.length - 1]!;
  return {
    id: taskId,
    title,
    state: last.state === "COMPLETED" ? rng.pick(["COMPLETED", "COMPLETED", "COMPLETED", "REVIEW"]) : last.state,
    createdAt: at(options.startMs - rng.int(MINUTE, DAY)),
    updatedAt: at(updated),
    queuedForStep: false,
    sessions,
    scenario: null,
    lastActivityMs: updated,
  };
}
