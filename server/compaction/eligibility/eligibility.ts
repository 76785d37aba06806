// Task eligibility for payload removal. Read-only: it never stops, touches
// or re-times a task; it only decides whether the task may lose payloads.
//
// Decisions (documented because the spec leaves them open):
// - A task with no sessions is eligible by its own timestamps: it owns no
//   message rows, so nothing can be removed from it and nothing is at risk.
// - A message whose turn belongs to another session is missing ownership.
// - Required stamps are the NOT NULL columns (task created/updated, session
//   updated, turn started, message created/updated); session started and
//   completed may be absent (a cancelled session may never have run).
// - The 200 ms budget is measured across all probes of one task with the
//   injected clock, so a single slow probe and many medium ones both trip it.
import "server-only";
import type { Clock } from "@/server/clock";
import { isRetained } from "./cutoff";
import { laterOf, sessionRowActivity, taskRowActivity } from "./activity";
import type { CompactionStore, EligibilityVerbs } from "../store";

export const ELIGIBILITY_BUDGET_MS = 200;

export { INELIGIBLE_REASONS, type IneligibleReason } from "@/lib/compaction/skip-reasons";
import type { IneligibleReason } from "@/lib/compaction/skip-reasons";

export type Eligibility = { eligible: true; activityMs: number } | { eligible: false; reason: IneligibleReason };

export const LIVE_TASK_STATES: ReadonlySet<string> = new Set(["SCHEDULING", "IN_PROGRESS", "WAITING_FOR_INPUT"]);
export const IDLE_TASK_STATES: ReadonlySet<string> = new Set(["TODO", "CREATED", "REVIEW", "BLOCKED", "COMPLETED", "FAILED", "CANCELLED"]);
export const TERMINAL_SESSION_STATES: ReadonlySet<string> = new Set(["COMPLETED", "FAILED", "CANCELLED"]);
export const ACTIVE_SESSION_STATES: ReadonlySet<string> = new Set(["CREATED", "STARTING", "RUNNING", "WAITING_FOR_INPUT"]);
export const LIVE_RUN_STATES: ReadonlySet<string> = new Set(["QUEUED", "RUNNING"]);

export type EligibilityOptions = {
  store: CompactionStore;
  taskId: string;
  cutoffMs: number;
  clock: Clock;
  budgetMs?: number;
  /**
   * The task's probes read already (store.taskProbes, one statement) and when
   * that read began: the budget counts from there, as if read here.
   */
  read?: { probes: EligibilityVerbs; startedMs: number };
};

export class Ineligible extends Error {
  constructor(readonly reason: IneligibleReason) {
    super(reason);
  }
}

/** Decides whether one task may have its tool payloads removed at this cutoff. */
export async function checkTaskEligibility(options: EligibilityOptions): Promise<Eligibility> {
  try {
    return { eligible: true, activityMs: await probeTask(options) };
  } catch (error) {
    if (error instanceof Ineligible) return { eligible: false, reason: error.reason };
    throw error;
  }
}

async function probeTask({ store, taskId, cutoffMs, clock, budgetMs = ELIGIBILITY_BUDGET_MS, read }: EligibilityOptions): Promise<number> {
  const startedMs = read?.startedMs ?? clock.now();
  // Every probe goes through here: the budget is checked after each one.
  const run = async <T>(query: () => Promise<T>): Promise<T> => {
    const value = await query();
    if (clock.now() - startedMs > budgetMs) throw new Ineligible("eligibility_budget");
    return value;
  };
  const guardActivity = (activity: number | null): number => {
    if (activity === null) throw new Ineligible("invalid_timestamp");
    // Equal to the cutoff is retained: only strictly older activity qualifies.
    if (isRetained(activity, cutoffMs)) throw new Ineligible("recent_activity");
    return activity;
  };

  // Where the engine reads a task's probes at once, they are answered from that one read.
  const probes = read ? read.probes : store.taskProbes ? await run(() => store.taskProbes!(taskId)) : store;
  if (read && clock.now() - startedMs > budgetMs) throw new Ineligible("eligibility_budget");
  const task = await run(() => probes.readTaskActivity(taskId));
  if (!task) throw new Ineligible("task_missing");
  // A hold is the administrator's word: it wins over every other reason.
  if (await run(() => probes.isTaskHeld(taskId))) throw new Ineligible("held");
  if (LIVE_TASK_STATES.has(task.state)) throw new Ineligible("live_task");
  if (!IDLE_TASK_STATES.has(task.state)) throw new Ineligible("unknown_state");
  if (task.queuedForStep) throw new Ineligible("queued_admission");
  let activity = guardActivity(taskRowActivity(task));

  const sessions = await run(() => probes.listSessionActivity(taskId));
  // Cheap row checks for every session first, so a live sibling session
  // rejects the task before any message index is touched.
  for (const session of sessions) {
    if (ACTIVE_SESSION_STATES.has(session.state)) throw new Ineligible("session_active");
    if (!TERMINAL_SESSION_STATES.has(session.state)) throw new Ineligible("unknown_state");
    activity = guardActivity(sessionRowActivity(session, activity));
  }
  for (const session of sessions) activity = await probeSession({ run, store: probes, sessionId: session.id, activity, guardActivity });
  return activity;
}

type ProbeContext = {
  run: <T>(query: () => Promise<T>) => Promise<T>;
  store: EligibilityVerbs;
  sessionId: string;
  activity: number;
  guardActivity: (activity: number | null) => number;
};

async function probeSession({ run, store, sessionId, activity, guardActivity }: ProbeContext): Promise<number> {
  if (await run(() => store.hasQueuedMessage(sessionId))) throw new Ineligible("queued_message");
  const unfinished = await run(() => store.findUnfinishedRunState(sessionId));
  if (unfinished !== null) throw new Ineligible(LIVE_RUN_STATES.has(unfinished) ? "live_run" : "unknown_state");

  const turns = await run(() => store.summarizeTurns(sessionId));
  if (turns.open > 0) throw new Ineligible("open_turn");
  if (turns.invalid > 0) throw new Ineligible("invalid_timestamp");
  let latest = guardActivity(laterOf(laterOf(activity, turns.maxStarted), turns.maxCompleted));

  if (await run(() => store.hasPendingInput(sessionId))) throw new Ineligible("pending_input");
  if (await run(() => store.hasUnparsedMessageUpdate(sessionId))) throw new Ineligible("invalid_timestamp");
  if (await run(() => store.hasUnparsedMessageCreation(sessionId))) throw new Ineligible("invalid_timestamp");
  const updated = await run(() => store.latestMessageUpdate(sessionId));
  const created = await run(() => store.latestMessageCreation(sessionId));
  latest = guardActivity(laterOf(laterOf(latest, updated), created));
  if (await run(() => store.hasForeignTurnMessage(sessionId))) throw new Ineligible("missing_ownership");
  return latest;
}
