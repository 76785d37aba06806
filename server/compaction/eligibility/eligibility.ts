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
import type { Sqlite } from "@/server/db/client";
import { isRetained } from "./cutoff";
import { laterOf, sessionRowActivity, taskRowActivity, type SessionRow, type TaskRow } from "./activity";
import { probeStatements } from "./eligibility-sql";

export const ELIGIBILITY_BUDGET_MS = 200;

export { INELIGIBLE_REASONS, type IneligibleReason } from "@/lib/compaction/skip-reasons";
import type { IneligibleReason } from "@/lib/compaction/skip-reasons";

export type Eligibility = { eligible: true; activityMs: number } | { eligible: false; reason: IneligibleReason };

const LIVE_TASK_STATES = new Set(["SCHEDULING", "IN_PROGRESS", "WAITING_FOR_INPUT"]);
const IDLE_TASK_STATES = new Set(["TODO", "CREATED", "REVIEW", "BLOCKED", "COMPLETED", "FAILED", "CANCELLED"]);
const TERMINAL_SESSION_STATES = new Set(["COMPLETED", "FAILED", "CANCELLED"]);
const ACTIVE_SESSION_STATES = new Set(["CREATED", "STARTING", "RUNNING", "WAITING_FOR_INPUT"]);
const LIVE_RUN_STATES = new Set(["QUEUED", "RUNNING"]);

export type EligibilityOptions = {
  sqlite: Sqlite;
  taskId: string;
  cutoffMs: number;
  clock: Clock;
  budgetMs?: number;
};

class Ineligible extends Error {
  constructor(readonly reason: IneligibleReason) {
    super(reason);
  }
}

/** Decides whether one task may have its tool payloads removed at this cutoff. */
export function checkTaskEligibility(options: EligibilityOptions): Eligibility {
  try {
    return { eligible: true, activityMs: probeTask(options) };
  } catch (error) {
    if (error instanceof Ineligible) return { eligible: false, reason: error.reason };
    throw error;
  }
}

function probeTask({ sqlite, taskId, cutoffMs, clock, budgetMs = ELIGIBILITY_BUDGET_MS }: EligibilityOptions): number {
  const sql = probeStatements(sqlite);
  const startedMs = clock.now();
  // Every probe goes through here: the budget is checked after each one.
  const run = <T>(query: () => T): T => {
    const value = query();
    if (clock.now() - startedMs > budgetMs) throw new Ineligible("eligibility_budget");
    return value;
  };
  const guardActivity = (activity: number | null): number => {
    if (activity === null) throw new Ineligible("invalid_timestamp");
    // Equal to the cutoff is retained: only strictly older activity qualifies.
    if (isRetained(activity, cutoffMs)) throw new Ineligible("recent_activity");
    return activity;
  };

  const task = run(() => sql.task.get(taskId) as TaskRow | undefined);
  if (!task) throw new Ineligible("task_missing");
  if (LIVE_TASK_STATES.has(task.state)) throw new Ineligible("live_task");
  if (!IDLE_TASK_STATES.has(task.state)) throw new Ineligible("unknown_state");
  if (task.queuedForStep) throw new Ineligible("queued_admission");
  let activity = guardActivity(taskRowActivity(task));

  const sessions = run(() => sql.sessions.all(taskId) as SessionRow[]);
  // Cheap row checks for every session first, so a live sibling session
  // rejects the task before any message index is touched.
  for (const session of sessions) {
    if (ACTIVE_SESSION_STATES.has(session.state)) throw new Ineligible("session_active");
    if (!TERMINAL_SESSION_STATES.has(session.state)) throw new Ineligible("unknown_state");
    activity = guardActivity(sessionRowActivity(session, activity));
  }
  for (const session of sessions) activity = probeSession({ run, sql, sessionId: session.id, activity, guardActivity });
  return activity;
}

type ProbeContext = {
  run: <T>(query: () => T) => T;
  sql: ReturnType<typeof probeStatements>;
  sessionId: string;
  activity: number;
  guardActivity: (activity: number | null) => number;
};

function probeSession({ run, sql, sessionId, activity, guardActivity }: ProbeContext): number {
  if (run(() => sql.queuedMessage.get(sessionId))) throw new Ineligible("queued_message");
  const unfinished = run(() => sql.unfinishedRun.get(sessionId) as { state: string } | undefined);
  if (unfinished) throw new Ineligible(LIVE_RUN_STATES.has(unfinished.state) ? "live_run" : "unknown_state");

  const turns = run(
    () =>
      sql.turns.get(sessionId) as { open: number; invalid: number; maxStarted: number | null; maxCompleted: number | null },
  );
  if (turns.open > 0) throw new Ineligible("open_turn");
  if (turns.invalid > 0) throw new Ineligible("invalid_timestamp");
  let latest = guardActivity(laterOf(laterOf(activity, turns.maxStarted), turns.maxCompleted));

  if (run(() => sql.pendingInput.get(sessionId))) throw new Ineligible("pending_input");
  if (run(() => sql.messageInvalidUpdated.get(sessionId))) throw new Ineligible("invalid_timestamp");
  if (run(() => sql.messageInvalidCreated.get(sessionId))) throw new Ineligible("invalid_timestamp");
  const updated = run(() => sql.messageMaxUpdated.get(sessionId) as { ms: number | null });
  const created = run(() => sql.messageMaxCreated.get(sessionId) as { ms: number | null });
  latest = guardActivity(laterOf(laterOf(latest, updated.ms), created.ms));
  if (run(() => sql.foreignTurn.get(sessionId))) throw new Ineligible("missing_ownership");
  return latest;
}
