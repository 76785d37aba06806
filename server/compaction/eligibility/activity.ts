// Task activity: the latest validated instant among the task, its sessions,
// their turns and their messages. Only the `_ms` companions are compared
// (parsed UTC instants), never the stored text, because offsets change the
// lexical order. A timestamp whose text is present but whose `_ms` is NULL
// did not parse: the task is protected (invalid_timestamp).
import "server-only";
import type { SessionActivityRow, TaskActivityRow } from "../store";

/** One stored timestamp: its text as written and its parsed instant. */
export type StoredStamp = { text: string | null; ms: number | null };

export type StampCheck = "valid" | "absent" | "invalid";

/**
 * Classifies a stored timestamp. Required stamps (NOT NULL columns: task
 * created/updated, session updated, turn started, message created/updated)
 * are invalid when absent or empty; optional ones (session started and
 * completed, turn completed) may be absent.
 */
export function checkStamp(stamp: StoredStamp, required: boolean): StampCheck {
  if (stamp.text === null || stamp.text === "") return required ? "invalid" : "absent";
  if (stamp.ms === null || !Number.isFinite(stamp.ms)) return "invalid";
  return "valid";
}

/** Folds stamps into a running maximum; returns null when any is invalid. */
export function latestValid(current: number, stamps: Array<{ stamp: StoredStamp; required: boolean }>): number | null {
  let latest = current;
  for (const { stamp, required } of stamps) {
    const check = checkStamp(stamp, required);
    if (check === "invalid") return null;
    if (check === "valid" && (stamp.ms as number) > latest) latest = stamp.ms as number;
  }
  return latest;
}

/** Newest of two instants, ignoring a NULL aggregate (no rows). */
export function laterOf(a: number, b: number | null | undefined): number {
  return typeof b === "number" && b > a ? b : a;
}

/** Activity of the task row itself (a rename bumps updated_at and counts). */
export function taskRowActivity(task: TaskActivityRow): number | null {
  return latestValid(Number.NEGATIVE_INFINITY, [
    { stamp: { text: task.createdAt, ms: task.createdAtMs }, required: true },
    { stamp: { text: task.updatedAt, ms: task.updatedAtMs }, required: true },
  ]);
}

/** Activity of one session row, or null when one of its stamps is invalid. */
export function sessionRowActivity(session: SessionActivityRow, current: number): number | null {
  return latestValid(current, [
    { stamp: { text: session.startedAt, ms: session.startedAtMs }, required: false },
    { stamp: { text: session.updatedAt, ms: session.updatedAtMs }, required: true },
    { stamp: { text: session.completedAt, ms: session.completedAtMs }, required: false },
  ]);
}
