// Read statements of the PostgreSQL WorkspaceStore (pg-store.ts), the same
// answers as sqlite-reads.ts. Ids sort with the "C" collation (bytewise,
// like SQLite) whatever the database's locale; insertion order is `seq`
// (SQLite's rowid). Tool summaries are read from the metadata text with the
// span scanner (metadata-fields.ts): the column is text, never jsonb.
import type { PgQueryable } from "@/server/db/pg/pg-db";
import { toolSummaryFields } from "./metadata-fields";
import type { ConversationRow, TaskHeader, TaskListRow, TaskTree } from "./store";

export async function listTasks(db: PgQueryable, page: { limit: number; offset: number }): Promise<{ tasks: TaskListRow[]; total: number }> {
  // Two statements at once (on two pooled sessions outside a transaction), as before not one snapshot.
  const [tasks, count] = await Promise.all([
    db.query<TaskListRow>(
      `select t.id, t.title, t.state, t.updated_at as "updatedAt",
         (select count(*) from messages m join task_sessions s on s.id = m.session_id where s.task_id = t.id) as "messageCount"
       from tasks t order by coalesce(t.updated_at_ms, 0) desc, t.id collate "C" limit $1 offset $2`,
      [page.limit, page.offset],
    ),
    db.one<{ total: number }>(`select count(*) as total from tasks`),
  ]);
  return { tasks, total: count!.total };
}

/** The statements the read thread's node-postgres client runs too (read-thread/connection.ts). */
export const PG_TASK_HEADER_SQL = `select id, title, state, created_at as "createdAt", updated_at as "updatedAt" from tasks where id = $1`;
export const PG_CONVERSATION_SQL = `select m.id, m.session_id as "sessionId", m.type, m.author_type as "authorType", m.content, m.created_at as "createdAt", m.metadata
     from messages m join task_sessions s on s.id = m.session_id
     where s.task_id = $1
     order by coalesce(s.started_at_ms, 0), s.id collate "C", coalesce(m.created_at_ms, 0), m.rowid
     limit $2`;

/**
 * The same rows for the read thread, with the metadata of rows up to `$3`
 * bytes only (and each row's rowid): a larger one is read alone afterwards
 * (PG_MESSAGE_METADATA_SQL), so a page of 1,000 rows holds at most one
 * large row at a time, not all of them.
 */
export const PG_CONVERSATION_BOUNDED_SQL = `select m.id, m.session_id as "sessionId", m.type, m.author_type as "authorType", m.content, m.created_at as "createdAt",
       case when octet_length(m.metadata) <= $3 then m.metadata end as metadata, m.rowid::text as "rowid"
     from messages m join task_sessions s on s.id = m.session_id
     where s.task_id = $1
     order by coalesce(s.started_at_ms, 0), s.id collate "C", coalesce(m.created_at_ms, 0), m.rowid
     limit $2`;
export const PG_MESSAGE_METADATA_SQL = `select metadata from messages where rowid = $1`;

export type StoredConversationRow = Omit<ConversationRow, "kind" | "title" | "command" | "exitCode" | "markerType" | "removedAt"> & { metadata: string };

/** A stored row with its tool summary read from the metadata text by the span scanner. */
export function conversationRowOf({ metadata, ...row }: StoredConversationRow): ConversationRow {
  return { ...row, ...toolSummaryFields(metadata) };
}

export function readTaskHeader(db: PgQueryable, taskId: string): Promise<TaskHeader | null> {
  return db.one<TaskHeader>(PG_TASK_HEADER_SQL, [taskId]);
}

export async function listConversationRows(db: PgQueryable, taskId: string, limit: number): Promise<ConversationRow[]> {
  return (await db.query<StoredConversationRow>(PG_CONVERSATION_SQL, [taskId, limit])).map(conversationRowOf);
}

type TreeSession = TaskTree["sessions"][number];

async function readSession(db: PgQueryable, session: Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">): Promise<TreeSession> {
  const turns = await db.query<TreeSession["turns"][number]>(
    `select id, started_at as "startedAt", completed_at as "completedAt" from turns where session_id = $1 order by seq`,
    [session.id],
  );
  const messages = await db.query<TreeSession["messages"][number]>(
    `select id, turn_id as "turnId", author_type as "authorType", type, content, metadata, created_at as "createdAt", updated_at as "updatedAt"
     from messages where session_id = $1 order by rowid`,
    [session.id],
  );
  const queuedMessages = await db.query<TreeSession["queuedMessages"][number]>(
    `select id, content, queued_at as "queuedAt" from queued_messages where session_id = $1 order by seq`,
    [session.id],
  );
  const runs = await db.query<TreeSession["runs"][number]>(`select id, state from runs where session_id = $1 order by seq`, [session.id]);
  return { ...session, turns, messages, queuedMessages, runs };
}

/** Call inside a snapshot transaction: the caller wants one consistent tree. */
export async function readTaskTree(db: PgQueryable, taskId: string): Promise<TaskTree | null> {
  const task = await db.one<TaskTree["task"]>(
    `select id, title, state, created_at as "createdAt", updated_at as "updatedAt", queued_for_step as "queuedForStep" from tasks where id = $1`,
    [taskId],
  );
  if (!task) return null;
  const sessions = await db.query<Omit<TreeSession, "turns" | "messages" | "queuedMessages" | "runs">>(
    `select id, state, started_at as "startedAt", updated_at as "updatedAt", completed_at as "completedAt"
     from task_sessions where task_id = $1 order by seq`,
    [taskId],
  );
  const hold = await db.one<NonNullable<TaskTree["hold"]>>(`select held_at as "heldAt", held_by as "heldBy" from task_holds where task_id = $1`, [taskId]);
  const trees: TreeSession[] = [];
  for (const session of sessions) trees.push(await readSession(db, session));
  return { task, hold, sessions: trees };
}
