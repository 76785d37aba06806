// The walk shared by analysis and cleanup: tasks by id, then each eligible
// task's sessions by id, then each session's tool rows by rowid, in pages.
// The position is lexicographic over (task, session, rowid):
//   afterTaskId=T, afterSessionId=null          -> task T is done
//   afterTaskId=T, afterSessionId=S, rowid=null -> T's sessions up to S are done
//   afterTaskId=T, afterSessionId=S, rowid=R    -> session S is done up to rowid R
//   afterTaskId=T, afterSessionId="", rowid=null -> T was entered (counted), no session done
// A resumed walk re-enters T (fresh eligibility) and continues after S/R.
import "server-only";
import type { CompactionStore, PassBounds } from "../store";
import { planMessagePage, type PageLimits, type PlannedPage } from "./candidates";

export type ScanPosition = { afterTaskId: string | null; afterSessionId: string | null; afterMessageRowid: number | null };

/** The session id of "task entered, nothing done yet": every real session id sorts after it. */
export const ENTERED_TASK = "";

export const START_POSITION: ScanPosition = { afterTaskId: null, afterSessionId: null, afterMessageRowid: null };

/** "skip_task" abandons the rest of the task (it became ineligible). */
export type PageVerdict = "advance" | "retry" | "stop" | "skip_task";

export type ScanHandlers = {
  /** Decides a task before its rows are read; false skips it, "stop" ends the walk. */
  enterTask(taskId: string): boolean | "stop" | Promise<boolean | "stop">;
  /** Handles one page; "retry" re-plans the same page (with `limits()` again). */
  page(input: { taskId: string; sessionId: string; page: PlannedPage; next: ScanPosition }): Promise<PageVerdict>;
  /** Called when the position moves without a page (task skipped or finished). */
  moved(position: ScanPosition): void;
  /**
   * The entered task's session ids in the database's id order, as its probe
   * read them (PostgreSQL: the same statement), or null: they are listed.
   */
  sessionsOf?(taskId: string): readonly string[] | null;
  /** Checked between pages and tasks; true ends the walk (budget, cancel). */
  shouldStop(): boolean;
  limits(): PageLimits;
};

export type ScanOutcome = { finished: boolean; position: ScanPosition };

const TASK_PAGE = 100;
const SESSION_PAGE = 100;

/** Walks from `position` to the captured bounds, or until a handler stops it. */
export async function scanCandidates(options: {
  store: CompactionStore;
  bounds: PassBounds;
  position: ScanPosition;
  handlers: ScanHandlers;
}): Promise<ScanOutcome> {
  const { store, bounds, handlers } = options;
  let position = { ...options.position };
  // A position inside a task resumes that task first.
  let resumeTask = position.afterTaskId !== null && position.afterSessionId !== null;
  for (;;) {
    const taskIds = resumeTask ? [position.afterTaskId as string] : await nextTaskIds(store, bounds, position.afterTaskId);
    if (taskIds.length === 0) return { finished: true, position };
    for (const taskId of taskIds) {
      if (handlers.shouldStop()) return { finished: false, position };
      const inside = resumeTask ? position : { afterTaskId: taskId, afterSessionId: null, afterMessageRowid: null };
      resumeTask = false;
      const verdict = await handlers.enterTask(taskId);
      if (verdict === "stop") return { finished: false, position };
      if (verdict) {
        const walked = await walkTask({ store, bounds, handlers, taskId, position: inside });
        if (!walked.finished) return walked;
      }
      position = { afterTaskId: taskId, afterSessionId: null, afterMessageRowid: null };
      handlers.moved(position);
    }
  }
}

async function nextTaskIds(store: CompactionStore, bounds: PassBounds, afterTaskId: string | null): Promise<string[]> {
  if (bounds.upperTaskId === null) return [];
  return store.listTaskIds({ afterTaskId, upperTaskId: bounds.upperTaskId, limit: TASK_PAGE });
}

async function walkTask(options: {
  store: CompactionStore;
  bounds: PassBounds;
  handlers: ScanHandlers;
  taskId: string;
  position: ScanPosition;
}): Promise<ScanOutcome> {
  const { store, bounds, handlers, taskId } = options;
  let afterSessionId = options.position.afterSessionId;
  let resumeRowid = options.position.afterMessageRowid;
  // Resuming inside a session (rowid set) continues that session first.
  let resumeSession = afterSessionId !== null && resumeRowid !== null;
  const known = handlers.sessionsOf?.(taskId) ?? null;
  for (;;) {
    const listed = !resumeSession;
    const sessionIds = resumeSession
      ? [afterSessionId as string]
      : (knownAfter(known, afterSessionId) ?? (await store.listSessionIds({ taskId, afterSessionId, limit: SESSION_PAGE })));
    if (sessionIds.length === 0) return { finished: true, position: { afterTaskId: taskId, afterSessionId, afterMessageRowid: null } };
    for (const sessionId of sessionIds) {
      let afterRowid = resumeSession ? resumeRowid : null;
      resumeSession = false;
      resumeRowid = null;
      for (;;) {
        // Rowid 0 means "from the start of this session": a null rowid would
        // read as "after this session" on resume and skip it.
        const here: ScanPosition = { afterTaskId: taskId, afterSessionId: sessionId, afterMessageRowid: afterRowid ?? 0 };
        if (handlers.shouldStop()) return { finished: false, position: here };
        const page = await planMessagePage(store, { sessionId, afterRowid, bounds, limits: handlers.limits() });
        if (page.lastRowid === null) break;
        const next: ScanPosition = page.exhausted
          ? { afterTaskId: taskId, afterSessionId: sessionId, afterMessageRowid: null }
          : { afterTaskId: taskId, afterSessionId: sessionId, afterMessageRowid: page.lastRowid };
        const verdict = await handlers.page({ taskId, sessionId, page, next });
        if (verdict === "stop") return { finished: false, position: here };
        if (verdict === "skip_task") return { finished: true, position: here };
        if (verdict === "retry") continue;
        afterRowid = page.lastRowid;
        if (page.exhausted) break;
      }
      afterSessionId = sessionId;
      handlers.moved({ afterTaskId: taskId, afterSessionId: sessionId, afterMessageRowid: null });
    }
    // A short page was the last one: asking again would only answer none (a round trip per task on PostgreSQL).
    if (listed && sessionIds.length < SESSION_PAGE) return { finished: true, position: { afterTaskId: taskId, afterSessionId, afterMessageRowid: null } };
  }
}

/**
 * The known sessions after `afterSessionId` (null, or the entered-task
 * marker: all of them), found by position in the database's order, never
 * compared in JavaScript (a collation may order ids otherwise); null when
 * unknown or when the position names a session the list lacks.
 */
function knownAfter(known: readonly string[] | null, afterSessionId: string | null): string[] | null {
  if (!known) return null;
  if (afterSessionId === null || afterSessionId === ENTERED_TASK) return [...known];
  const at = known.indexOf(afterSessionId);
  return at < 0 ? null : known.slice(at + 1);
}
