// The in-batch eligibility re-check, in constant time per session.
//
// The full probe (eligibility.ts) visits whole sessions (turn summaries, the
// ownership skip-scan, pending input); it runs once per task BEFORE its
// batches, outside the writer. Inside each batch's writer transaction only
// indexed facts are read again: the task row, its session rows, queued
// messages, unfinished runs, the newest message stamps and the session's
// newest message and turn rowids. Watermarks are read before the full probe,
// so a message or turn added after the probe has a larger rowid and makes the
// task ineligible for this pass (`recent_activity`); the next pass probes it
// afresh. An existing message rewritten since bumps its updated_at, which the
// latest-update seek sees. Changes that move no rowid and no message stamp
// (an existing turn's row edited in place) are left to the next full probe.
import "server-only";
import type { Clock } from "@/server/clock";
import type { CompactionStore, EligibilityVerbs, SessionWatermark } from "../store";
import { isRetained } from "./cutoff";
import { laterOf, sessionRowActivity, taskRowActivity } from "./activity";
import {
  ACTIVE_SESSION_STATES,
  ELIGIBILITY_BUDGET_MS,
  IDLE_TASK_STATES,
  Ineligible,
  LIVE_RUN_STATES,
  LIVE_TASK_STATES,
  TERMINAL_SESSION_STATES,
  type Eligibility,
} from "./eligibility";

/** What the pass knew of a task when it probed it: its sessions and their watermarks. */
export type TaskSnapshot = { taskId: string; sessions: ReadonlyMap<string, SessionWatermark> };

/**
 * Reads the watermarks of every session of the task (call it BEFORE the full
 * probe), or takes them from `probes`: the full probe's own one-statement
 * read (store.taskProbes), where watermarks and probes share one snapshot.
 */
export async function captureTaskSnapshot(store: CompactionStore, taskId: string, probes?: EligibilityVerbs): Promise<TaskSnapshot> {
  const sessions = new Map<string, SessionWatermark>();
  probes ??= store.taskProbes ? await store.taskProbes(taskId, { indexedOnly: true }) : store;
  for (const session of await probes.listSessionActivity(taskId)) sessions.set(session.id, await probes.readSessionWatermark(session.id));
  return { taskId, sessions };
}

const sameMark = (a: SessionWatermark, b: SessionWatermark | undefined) =>
  b !== undefined && a.maxMessageRowid === b.maxMessageRowid && a.maxTurnRowid === b.maxTurnRowid;

export type RecheckOptions = {
  store: CompactionStore;
  snapshot: TaskSnapshot;
  cutoffMs: number;
  clock: Clock;
  budgetMs?: number;
  /** The indexed probes read already for the batch's tasks (store.tasksProbes, one statement) and when that read began: the budget counts from there. */
  read?: { probes: EligibilityVerbs; startedMs: number };
};

/** Re-decides a probed task from indexed facts only (see the module comment). */
export async function recheckTaskEligibility(options: RecheckOptions): Promise<Eligibility> {
  try {
    return { eligible: true, activityMs: await recheck(options) };
  } catch (error) {
    if (error instanceof Ineligible) return { eligible: false, reason: error.reason };
    throw error;
  }
}

async function recheck({ store, snapshot, cutoffMs, clock, budgetMs = ELIGIBILITY_BUDGET_MS, read }: RecheckOptions): Promise<number> {
  const startedMs = read?.startedMs ?? clock.now();
  const run = async <T>(query: () => Promise<T>): Promise<T> => {
    const value = await query();
    if (clock.now() - startedMs > budgetMs) throw new Ineligible("eligibility_budget");
    return value;
  };
  const guard = (activity: number | null): number => {
    if (activity === null) throw new Ineligible("invalid_timestamp");
    if (isRetained(activity, cutoffMs)) throw new Ineligible("recent_activity");
    return activity;
  };
  // Where the engine reads them at once: the indexed probes of the task and its sessions in one read.
  const probes = read ? read.probes : store.taskProbes ? await run(() => store.taskProbes!(snapshot.taskId, { indexedOnly: true })) : store;
  if (read && clock.now() - startedMs > budgetMs) throw new Ineligible("eligibility_budget");
  const task = await run(() => probes.readTaskActivity(snapshot.taskId));
  if (!task) throw new Ineligible("task_missing");
  // Read inside the batch's writer transaction: a hold committed since the probe drops the task here.
  if (await run(() => probes.isTaskHeld(snapshot.taskId))) throw new Ineligible("held");
  if (LIVE_TASK_STATES.has(task.state)) throw new Ineligible("live_task");
  if (!IDLE_TASK_STATES.has(task.state)) throw new Ineligible("unknown_state");
  if (task.queuedForStep) throw new Ineligible("queued_admission");
  let activity = guard(taskRowActivity(task));
  const sessions = await run(() => probes.listSessionActivity(snapshot.taskId));
  // A session added since the probe is new activity.
  if (sessions.length !== snapshot.sessions.size) throw new Ineligible("recent_activity");
  for (const session of sessions) {
    if (ACTIVE_SESSION_STATES.has(session.state)) throw new Ineligible("session_active");
    if (!TERMINAL_SESSION_STATES.has(session.state)) throw new Ineligible("unknown_state");
    activity = guard(sessionRowActivity(session, activity));
  }
  for (const session of sessions) {
    const id = session.id;
    if (!sameMark(await run(() => probes.readSessionWatermark(id)), snapshot.sessions.get(id))) throw new Ineligible("recent_activity");
    if (await run(() => probes.hasQueuedMessage(id))) throw new Ineligible("queued_message");
    const unfinished = await run(() => probes.findUnfinishedRunState(id));
    if (unfinished !== null) throw new Ineligible(LIVE_RUN_STATES.has(unfinished) ? "live_run" : "unknown_state");
    if (await run(() => probes.hasUnparsedMessageUpdate(id))) throw new Ineligible("invalid_timestamp");
    activity = guard(laterOf(activity, await run(() => probes.latestMessageUpdate(id))));
  }
  return activity;
}
