// Realistic reasons a task must NOT be compacted, applied to otherwise old,
// finished tasks so each one is protected by exactly the reason it shows.
// Names match what the demo test checks for.
import { DAY, formatAt, HOUR, MINUTE } from "./demo-time";
import type { Rng } from "./prng";
import { inputRequest } from "./special-payloads";
import type { PlannedMessage, PlannedTask } from "./task-plan";

export type Scenario = {
  name: string;
  apply(task: PlannedTask, ctx: { rng: Rng; nowMs: number }): void;
};

const lastSession = (task: PlannedTask) => task.sessions[task.sessions.length - 1]!;
const lastTurn = (task: PlannedTask) => {
  const s = lastSession(task);
  return s.turns[s.turns.length - 1]!;
};
const lastMessage = (task: PlannedTask): PlannedMessage => {
  const s = lastSession(task);
  return s.messages[s.messages.length - 1]!;
};

function appendToLastTurn(task: PlannedTask, message: Omit<PlannedMessage, "id" | "turnId">): void {
  const s = lastSession(task);
  s.messages.push({ ...message, id: `${task.id}-m${String(s.messages.length + 900)}`, turnId: lastTurn(task).id });
}

export const SCENARIOS: readonly Scenario[] = [
  {
    // An agent process died mid-run: the session never left RUNNING.
    name: "running_session",
    apply(task) {
      const s = lastSession(task);
      s.state = "RUNNING";
      s.completedAt = null;
      task.state = "IN_PROGRESS";
    },
  },
  {
    name: "waiting_for_input",
    apply(task) {
      lastSession(task).state = "WAITING_FOR_INPUT";
      lastSession(task).completedAt = null;
      task.state = "WAITING_FOR_INPUT";
    },
  },
  {
    // Turn recovery never closed the last turn.
    name: "open_turn",
    apply(task) {
      lastTurn(task).completedAt = null;
    },
  },
  {
    name: "queued_message",
    apply(task, { rng }) {
      const s = lastSession(task);
      s.queuedMessages.push({ id: `${s.id}-q1`, content: "After that, please also update the changelog.", queuedAt: lastMessage(task).createdAt });
      void rng;
    },
  },
  {
    name: "pending_permission",
    apply(task, { rng }) {
      const at = lastMessage(task).createdAt;
      appendToLastTurn(task, { ...inputRequest(rng, "permission_request", "pending"), createdAt: at, updatedAt: at });
    },
  },
  {
    name: "pending_clarification",
    apply(task, { rng }) {
      const at = lastMessage(task).createdAt;
      appendToLastTurn(task, { ...inputRequest(rng, "clarification_request", null), createdAt: at, updatedAt: at });
    },
  },
  {
    name: "live_run",
    apply(task, { rng }) {
      const s = lastSession(task);
      s.runs.push({ id: `${s.id}-r2`, state: rng.pick(["RUNNING", "QUEUED"]) });
    },
  },
  {
    // Waiting in a workflow column for a step to pick it up.
    name: "queued_for_step",
    apply(task) {
      task.queuedForStep = true;
      task.state = "TODO";
    },
  },
  {
    // Renamed a few days ago: the rename counts as activity.
    name: "recent_activity",
    apply(task, { rng, nowMs }) {
      task.updatedAt = formatAt(nowMs - rng.int(1, 5) * DAY - rng.int(0, 12) * HOUR);
    },
  },
  {
    // A legacy importer wrote an impossible date.
    name: "invalid_timestamp",
    apply(task, { rng }) {
      lastMessage(task).updatedAt = rng.pick(["2025-02-30T10:00:00Z", "last tuesday", "2025-06-31 25:61:00"]);
    },
  },
  {
    name: "unknown_state",
    apply(task, { rng }) {
      if (rng.chance(0.5)) task.state = "ARCHIVED_LEGACY";
      else lastSession(task).state = "PAUSED";
    },
  },
  {
    // Offsets that reorder text: the newest message is written at -10:00 and
    // compares as text below the task's +14:00 timestamps, yet it is recent.
    name: "mixed_offsets",
    apply(task, { nowMs }) {
      const recent = nowMs - 10 * DAY;
      task.createdAt = formatAt(Date.parse(task.sessions[0]!.startedAt ?? "") - HOUR, 14 * 60);
      task.updatedAt = formatAt(Date.parse(lastSession(task).updatedAt), 14 * 60);
      const m = lastMessage(task);
      m.createdAt = formatAt(recent, -10 * 60);
      m.updatedAt = formatAt(recent + 3 * MINUTE, -10 * 60);
    },
  },
];
