// The eligibility probes for SQLite, in one table so a test can run EXPLAIN
// QUERY PLAN on each and prove none of them scans `messages`. Each probe is
// bounded by an index on (session_id, ...) or a primary key.
import "server-only";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { SyncEligibilityVerbs, SessionActivityRow, SessionWatermark, TaskActivityRow, TurnSummary } from "../store";

export const PROBE_SQL = {
  task: `select state, created_at as createdAt, created_at_ms as createdAtMs,
           updated_at as updatedAt, updated_at_ms as updatedAtMs, queued_for_step as queuedForStep
         from tasks where id = ?`,
  held: `select 1 as hit from task_holds where task_id = ?`,
  sessions: `select id, state, started_at as startedAt, started_at_ms as startedAtMs,
               updated_at as updatedAt, updated_at_ms as updatedAtMs,
               completed_at as completedAt, completed_at_ms as completedAtMs
             from task_sessions where task_id = ? order by id`,
  // One pass over the session's turns (turns_session_idx): open turns,
  // unparseable timestamps, latest start and completion.
  turns: `select count(*) as n,
            coalesce(sum(completed_at is null), 0) as open,
            coalesce(sum(started_at_ms is null or (completed_at is not null and completed_at_ms is null)), 0) as invalid,
            max(started_at_ms) as maxStarted, max(completed_at_ms) as maxCompleted
          from turns where session_id = ?`,
  // max() over an index whose prefix is the session: SQLite answers from the
  // last index entry of the session (NULLs sort first, so they never win).
  messageMaxUpdated: `select max(updated_at_ms) as ms from messages indexed by messages_session_updated_at_idx where session_id = ?`,
  messageMaxCreated: `select max(created_at_ms) as ms from messages indexed by messages_session_created_at_idx where session_id = ?`,
  // created_at/updated_at are NOT NULL text: a NULL _ms means the text did not parse.
  messageInvalidUpdated: `select 1 as hit from messages indexed by messages_session_updated_at_idx
                          where session_id = ? and updated_at_ms is null limit 1`,
  messageInvalidCreated: `select 1 as hit from messages indexed by messages_session_created_at_idx
                          where session_id = ? and created_at_ms is null limit 1`,
  // Pending input: status absent, "" or "pending". Unparseable metadata on
  // such a row counts as pending (fail closed); CASE keeps json_extract from
  // ever seeing invalid JSON.
  pendingInput: `select 1 as hit from messages indexed by messages_session_type_idx
                 where session_id = ? and type in ('permission_request', 'clarification_request')
                   and case when json_valid(metadata)
                            then coalesce(json_extract(metadata, '$.status'), '') in ('', 'pending')
                            else 1 end
                 limit 1`,
  // Missing ownership: a message pointing at a turn of another session.
  // A skip-scan over the (session_id, turn_id) index: each step seeks the
  // next distinct turn id, so the cost follows the session's turns, not its
  // messages (a 500k-message session has a few thousand turns).
  // (The driver binds a parameter once, so the session id comes from `arg`.)
  foreignTurn: `with recursive arg(sid) as (select ?),
                seen(turn_id) as (
                  select (select min(turn_id) from messages indexed by messages_session_turn_idx
                          where session_id = (select sid from arg) and turn_id is not null)
                  union all
                  select (select min(turn_id) from messages indexed by messages_session_turn_idx
                          where session_id = (select sid from arg) and turn_id > seen.turn_id)
                  from seen where seen.turn_id is not null)
                select 1 as hit from seen
                where seen.turn_id is not null
                  and not exists (select 1 from turns t where t.id = seen.turn_id and t.session_id = (select sid from arg))
                limit 1`,
  queuedMessage: `select 1 as hit from queued_messages where session_id = ? limit 1`,
  // max(rowid) over an index whose prefix is the session: one seek each.
  watermark: `with arg(sid) as (select ?)
              select (select max(rowid) from messages indexed by messages_session_rowid_idx where session_id = arg.sid) as maxMessageRowid,
                     (select max(rowid) from turns indexed by turns_session_idx where session_id = arg.sid) as maxTurnRowid
              from arg`,
  unfinishedRun: `select state from runs where session_id = ? and state not in ('SUCCEEDED', 'FAILED', 'CANCELLED') limit 1`,
} as const;

export function sqliteEligibilityVerbs(sqlite: Sqlite): SyncEligibilityVerbs {
  const hit = (sql: string, sessionId: string) => statement(sqlite, sql).get(sessionId) !== undefined;
  const latest = (sql: string, sessionId: string) => (statement(sqlite, sql).get(sessionId) as { ms: number | null }).ms;
  return {
    readTaskActivity: (taskId) => (statement(sqlite, PROBE_SQL.task).get(taskId) as TaskActivityRow | undefined) ?? null,
    isTaskHeld: (taskId) => statement(sqlite, PROBE_SQL.held).get(taskId) !== undefined,
    listSessionActivity: (taskId) => statement(sqlite, PROBE_SQL.sessions).all(taskId) as SessionActivityRow[],
    summarizeTurns: (sessionId) => statement(sqlite, PROBE_SQL.turns).get(sessionId) as TurnSummary,
    latestMessageUpdate: (sessionId) => latest(PROBE_SQL.messageMaxUpdated, sessionId),
    latestMessageCreation: (sessionId) => latest(PROBE_SQL.messageMaxCreated, sessionId),
    hasUnparsedMessageUpdate: (sessionId) => hit(PROBE_SQL.messageInvalidUpdated, sessionId),
    hasUnparsedMessageCreation: (sessionId) => hit(PROBE_SQL.messageInvalidCreated, sessionId),
    hasPendingInput: (sessionId) => hit(PROBE_SQL.pendingInput, sessionId),
    hasForeignTurnMessage: (sessionId) => hit(PROBE_SQL.foreignTurn, sessionId),
    hasQueuedMessage: (sessionId) => hit(PROBE_SQL.queuedMessage, sessionId),
    readSessionWatermark: (sessionId) => statement(sqlite, PROBE_SQL.watermark).get(sessionId) as SessionWatermark,
    findUnfinishedRunState: (sessionId) => (statement(sqlite, PROBE_SQL.unfinishedRun).get(sessionId) as { state: string } | undefined)?.state ?? null,
  };
}
