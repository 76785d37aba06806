// The eligibility probes for PostgreSQL: the same questions as
// sqlite-eligibility.ts, each bounded by an index on (session_id, ...) or a
// primary key. Pending input is judged on the metadata text with the one
// span scanner (PostgreSQL 15 has no json validity test and a cast of
// invalid JSON would throw); only the session's request rows are read.
import "server-only";
import { preparedStatement, type PgDb } from "@/server/db/pg/pg-db";
import { member } from "@/server/json/nodes";
import { scanJson } from "@/server/json/scan";
import type { EligibilityVerbs, SessionActivityRow, SessionWatermark, TaskActivityRow, TurnSummary } from "../store";

export const PG_PROBE_SQL = {
  task: `select state, created_at as "createdAt", created_at_ms as "createdAtMs",
           updated_at as "updatedAt", updated_at_ms as "updatedAtMs", queued_for_step::int as "queuedForStep"
         from tasks where id = $1`,
  held: `select 1 as hit from task_holds where task_id = $1`,
  sessions: `select id, state, started_at as "startedAt", started_at_ms as "startedAtMs",
               updated_at as "updatedAt", updated_at_ms as "updatedAtMs",
               completed_at as "completedAt", completed_at_ms as "completedAtMs"
             from task_sessions where task_id = $1 order by id`,
  turns: `select count(*)::int as n,
            count(*) filter (where completed_at is null)::int as open,
            count(*) filter (where started_at_ms is null or (completed_at is not null and completed_at_ms is null))::int as invalid,
            max(started_at_ms) as "maxStarted", max(completed_at_ms) as "maxCompleted"
          from turns where session_id = $1`,
  messageMaxUpdated: `select max(updated_at_ms) as ms from messages where session_id = $1`,
  messageMaxCreated: `select max(created_at_ms) as ms from messages where session_id = $1`,
  messageInvalidUpdated: `select 1 as hit from messages where session_id = $1 and updated_at_ms is null limit 1`,
  messageInvalidCreated: `select 1 as hit from messages where session_id = $1 and created_at_ms is null limit 1`,
  requestMetadata: `select metadata from messages where session_id = $1 and type in ('permission_request', 'clarification_request')`,
  foreignTurn: `select 1 as hit from messages m
                where m.session_id = $1 and m.turn_id is not null
                  and not exists (select 1 from turns t where t.id = m.turn_id and t.session_id = m.session_id)
                limit 1`,
  queuedMessage: `select 1 as hit from queued_messages where session_id = $1 limit 1`,
  unfinishedRun: `select state from runs where session_id = $1 and state not in ('SUCCEEDED', 'FAILED', 'CANCELLED') limit 1`,
  // Turns carry their insertion order in `seq` (SQLite's implicit rowid).
  watermark: `select (select max(rowid) from messages where session_id = $1) as "maxMessageRowid",
                     (select max(seq) from turns where session_id = $1) as "maxTurnRowid"`,
} as const;

// Every probe of one task in one statement (one snapshot, one round trip
// instead of a dozen per session): the same subqueries as above, per session.
// `indexed` keeps the ones the in-batch re-check asks (index seeks only).
const SESSION_PROBES = {
  maxMessageRowid: { indexed: true, sql: `(select max(rowid) from messages where session_id = s.id)` },
  maxTurnRowid: { indexed: true, sql: `(select max(seq) from turns where session_id = s.id)` },
  turns: {
    indexed: false,
    sql: `(select json_build_object('open', count(*) filter (where completed_at is null),
        'invalid', count(*) filter (where started_at_ms is null or (completed_at is not null and completed_at_ms is null)),
        'maxStarted', max(started_at_ms), 'maxCompleted', max(completed_at_ms)) from turns where session_id = s.id)`,
  },
  latestUpdate: { indexed: true, sql: `(select max(updated_at_ms) from messages where session_id = s.id)` },
  latestCreation: { indexed: false, sql: `(select max(created_at_ms) from messages where session_id = s.id)` },
  unparsedUpdate: { indexed: true, sql: `exists (select 1 from messages where session_id = s.id and updated_at_ms is null)` },
  unparsedCreation: { indexed: false, sql: `exists (select 1 from messages where session_id = s.id and created_at_ms is null)` },
  requests: {
    indexed: false,
    sql: `(select coalesce(json_agg(metadata), '[]'::json) from messages where session_id = s.id and type in ('permission_request', 'clarification_request'))`,
  },
  foreignTurn: {
    indexed: false,
    sql: `exists (select 1 from messages m where m.session_id = s.id and m.turn_id is not null
        and not exists (select 1 from turns t where t.id = m.turn_id and t.session_id = m.session_id))`,
  },
  queued: { indexed: true, sql: `exists (select 1 from queued_messages where session_id = s.id)` },
  unfinished: { indexed: true, sql: `(select state from runs where session_id = s.id and state not in ('SUCCEEDED', 'FAILED', 'CANCELLED') limit 1)` },
} as const;

// Several tasks at once (the in-batch re-check of every task of a batch):
// one row per task id of the array, in one statement.
function taskProbesSql(indexedOnly: boolean): string {
  const fields = Object.entries(SESSION_PROBES)
    .filter(([, probe]) => probe.indexed || !indexedOnly)
    .map(([name, probe]) => `'${name}', ${probe.sql}`);
  return `select t.id as "taskId",
  (select json_build_object('state', state, 'createdAt', created_at, 'createdAtMs', created_at_ms, 'updatedAt', updated_at,
     'updatedAtMs', updated_at_ms, 'queuedForStep', queued_for_step::int) from tasks where id = t.id)::text as task,
  exists (select 1 from task_holds where task_id = t.id) as held,
  (select coalesce(json_agg(json_build_object(
     'id', s.id, 'state', s.state, 'startedAt', s.started_at, 'startedAtMs', s.started_at_ms, 'updatedAt', s.updated_at,
     'updatedAtMs', s.updated_at_ms, 'completedAt', s.completed_at, 'completedAtMs', s.completed_at_ms,
     ${fields.join(",\n     ")}
   ) order by s.id), '[]'::json) from task_sessions s where s.task_id = t.id)::text as sessions
  from unnest($1::text[]) as t(id)`;
}
const TASK_PROBES_SQL = { all: preparedStatement(taskProbesSql(false)), indexed: preparedStatement(taskProbesSql(true)) };

type SessionProbes = SessionActivityRow &
  SessionWatermark &
  Partial<{
    turns: TurnSummary;
    latestUpdate: number | null;
    latestCreation: number | null;
    unparsedUpdate: boolean;
    unparsedCreation: boolean;
    requests: Array<string | null>;
    foreignTurn: boolean;
    queued: boolean;
    unfinished: string | null;
  }>;

type TaskProbes = { task: TaskActivityRow | null; held: boolean; sessions: SessionProbes[] };

/**
 * The probes of the tasks `taskIds` read at once and answered from memory. A
 * task or session the statement did not see (none: the callers ask only
 * about the tasks they listed and the sessions it listed) is asked of the
 * database.
 */
export async function readPgTaskProbes(db: PgDb, taskIds: readonly string[], options: { indexedOnly?: boolean } = {}): Promise<EligibilityVerbs> {
  const direct = pgEligibilityVerbs(db);
  const sql = options.indexedOnly ? TASK_PROBES_SQL.indexed : TASK_PROBES_SQL.all;
  const rows = await db.query<{ taskId: string; task: string | null; held: boolean; sessions: string }>(sql, [[...taskIds]]);
  const byTask = new Map<string, TaskProbes>(
    rows.map((row) => [row.taskId, { task: row.task === null ? null : (JSON.parse(row.task) as TaskActivityRow), held: row.held, sessions: JSON.parse(row.sessions) as SessionProbes[] }]),
  );
  const byId = new Map([...byTask.values()].flatMap((probes) => probes.sessions.map((session) => [session.id, session] as const)));
  // A probe the statement did not read (indexed only), or a session it did not see, is asked of the database.
  const of = <T>(sessionId: string, answer: (session: SessionProbes) => T | undefined, fallback: (sessionId: string) => Promise<T>): Promise<T> => {
    const session = byId.get(sessionId);
    const answered = session ? answer(session) : undefined;
    return answered !== undefined ? Promise.resolve(answered) : fallback(sessionId);
  };
  const ownTask = <T>(asked: string, answer: (probes: TaskProbes) => T, fallback: (taskId: string) => Promise<T>): Promise<T> => {
    const probes = byTask.get(asked);
    return probes ? Promise.resolve(answer(probes)) : fallback(asked);
  };
  return {
    readTaskActivity: (asked) => ownTask(asked, (probes) => probes.task, direct.readTaskActivity),
    isTaskHeld: (asked) => ownTask(asked, (probes) => probes.held, direct.isTaskHeld),
    listSessionActivity: (asked) =>
      ownTask(
        asked,
        ({ sessions }) =>
          sessions.map(({ id, state, startedAt, startedAtMs, updatedAt, updatedAtMs, completedAt, completedAtMs }) => ({
            id,
            state,
            startedAt,
            startedAtMs,
            updatedAt,
            updatedAtMs,
            completedAt,
            completedAtMs,
          })),
        direct.listSessionActivity,
      ),
    summarizeTurns: (id) => of(id, (session) => session.turns, direct.summarizeTurns),
    latestMessageUpdate: (id) => of(id, (session) => session.latestUpdate, direct.latestMessageUpdate),
    latestMessageCreation: (id) => of(id, (session) => session.latestCreation, direct.latestMessageCreation),
    hasUnparsedMessageUpdate: (id) => of(id, (session) => session.unparsedUpdate, direct.hasUnparsedMessageUpdate),
    hasUnparsedMessageCreation: (id) => of(id, (session) => session.unparsedCreation, direct.hasUnparsedMessageCreation),
    hasPendingInput: (id) => of(id, (session) => session.requests?.some(isPendingRequest), direct.hasPendingInput),
    hasForeignTurnMessage: (id) => of(id, (session) => session.foreignTurn, direct.hasForeignTurnMessage),
    hasQueuedMessage: (id) => of(id, (session) => session.queued, direct.hasQueuedMessage),
    findUnfinishedRunState: (id) => of(id, (session) => session.unfinished, direct.findUnfinishedRunState),
    readSessionWatermark: (id) =>
      of(id, (session) => ({ maxMessageRowid: session.maxMessageRowid, maxTurnRowid: session.maxTurnRowid }), direct.readSessionWatermark),
  };
}

/**
 * SQLite's `coalesce(json_extract(metadata, '$.status'), '') in ('', 'pending')`
 * with unreadable metadata counted as pending (fail closed). NULL (a table
 * another tool created without the NOT NULL constraint) is unreadable too,
 * as SQLite's json_valid(NULL) is.
 */
export function isPendingRequest(metadata: string | null): boolean {
  if (metadata === null) return true;
  const scanned = scanJson(metadata);
  if (!scanned.ok) return true;
  const status = scanned.root.kind === "object" ? member(scanned.root, "status") : undefined;
  if (!status || status.kind === "null") return true;
  return status.kind === "string" && (status.value === "" || status.value === "pending");
}

export function pgEligibilityVerbs(db: PgDb): EligibilityVerbs {
  const hit = async (sql: string, sessionId: string) => (await db.one(sql, [sessionId])) !== null;
  const latest = async (sql: string, sessionId: string) => (await db.one<{ ms: number | null }>(sql, [sessionId]))?.ms ?? null;
  return {
    readTaskActivity: (taskId) => db.one<TaskActivityRow>(PG_PROBE_SQL.task, [taskId]),
    isTaskHeld: async (taskId) => (await db.one(PG_PROBE_SQL.held, [taskId])) !== null,
    listSessionActivity: (taskId) => db.query<SessionActivityRow>(PG_PROBE_SQL.sessions, [taskId]),
    summarizeTurns: async (sessionId) => (await db.one<TurnSummary>(PG_PROBE_SQL.turns, [sessionId]))!,
    latestMessageUpdate: (sessionId) => latest(PG_PROBE_SQL.messageMaxUpdated, sessionId),
    latestMessageCreation: (sessionId) => latest(PG_PROBE_SQL.messageMaxCreated, sessionId),
    hasUnparsedMessageUpdate: (sessionId) => hit(PG_PROBE_SQL.messageInvalidUpdated, sessionId),
    hasUnparsedMessageCreation: (sessionId) => hit(PG_PROBE_SQL.messageInvalidCreated, sessionId),
    hasPendingInput: async (sessionId) =>
      (await db.query<{ metadata: string | null }>(PG_PROBE_SQL.requestMetadata, [sessionId])).some((row) => isPendingRequest(row.metadata)),
    hasForeignTurnMessage: (sessionId) => hit(PG_PROBE_SQL.foreignTurn, sessionId),
    hasQueuedMessage: (sessionId) => hit(PG_PROBE_SQL.queuedMessage, sessionId),
    findUnfinishedRunState: async (sessionId) => (await db.one<{ state: string }>(PG_PROBE_SQL.unfinishedRun, [sessionId]))?.state ?? null,
    readSessionWatermark: async (sessionId) =>
      (await db.one<SessionWatermark>(PG_PROBE_SQL.watermark, [sessionId])) ?? { maxMessageRowid: null, maxTurnRowid: null },
  };
}
