// The read thread's own connection to the database the runtime serves: a
// read-only SQLite connection to the same file (opened per task, so a
// restore that replaced the file is seen by the next one), or a
// node-postgres client of its own (the runtime's pool belongs to the main
// thread). The statements mirror the workspace
// stores' (sqlite-store.ts, pg-store.ts); the thread runs each read in one
// step on its own connection, so it needs none of the stores' queues.
// No "server-only": the read thread bundles this module.
import type DatabaseCtor from "better-sqlite3";
import type { Client as PgClient } from "pg";
import type { TaskConversation } from "@/lib/conversation/api";
import type { ExportReads } from "../export/export-stream";
import { pgExportReads } from "../pg-export-reads";
import { conversationRowOf, PG_CONVERSATION_BOUNDED_SQL, PG_MESSAGE_METADATA_SQL, PG_TASK_HEADER_SQL, type StoredConversationRow } from "../pg-reads";
import { conversationOf, CONVERSATION_ROWS } from "../read/conversation";
import type { TaskHeader } from "../store";
import { sqliteExportReads } from "../sqlite-export-reads";
import { listConversationRows, readTaskHeader } from "../sqlite-reads";
import type { ReadSource } from "./protocol";

export type StoredRow = { type: string; metadata: string };

export type ReadConnection = {
  readMessage(messageId: string): Promise<StoredRow | null>;
  /** The conversation view of a task (header and rows from one snapshot); AppError not_found for an unknown task. */
  conversation(taskId: string): Promise<TaskConversation>;
  exportReads: ExportReads;
  close(): Promise<void>;
};

/** Rows whose metadata is larger are read one by one for the conversation view (PostgreSQL). */
const INLINE_METADATA_BYTES = 64 * 1024;

export type Drivers = { sqlite: () => typeof DatabaseCtor; pg: () => { Client: typeof PgClient } };

export async function openReadConnection(source: ReadSource, drivers: Drivers): Promise<ReadConnection> {
  if (source.engine === "sqlite") {
    const Driver = drivers.sqlite();
    const sqlite = new Driver(source.file, { readonly: true, fileMustExist: true });
    sqlite.pragma("busy_timeout = 5000");
    const readMessage = sqlite.prepare(`select type, metadata from messages where id = ?`);
    return {
      readMessage: async (messageId) => (readMessage.get(messageId) as StoredRow | undefined) ?? null,
      // A deferred read transaction: the header and the rows from one snapshot, with the store's own statements.
      conversation: async (taskId) =>
        sqlite.transaction(() => conversationOf(readTaskHeader(sqlite as never, taskId), listConversationRows(sqlite as never, taskId, CONVERSATION_ROWS)))(),
      exportReads: sqliteExportReads(sqlite as never),
      close: async () => {
        sqlite.close();
      },
    };
  }
  const { Client } = drivers.pg();
  const client = new Client({ connectionString: source.url });
  // A session the server ends between queries (restart, a dropped database) emits "error" with no query to fail:
  // without a listener that is an uncaught exception. The next query fails on its own and the task reports it.
  client.on("error", () => {});
  await client.connect();
  return {
    readMessage: async (messageId) => {
      const result = await client.query<StoredRow>(`select type, metadata from messages where id = $1`, [messageId]);
      return result.rows[0] ?? null;
    },
    conversation: async (taskId) => {
      await client.query("begin isolation level repeatable read read only");
      try {
        const header = (await client.query<TaskHeader>(PG_TASK_HEADER_SQL, [taskId])).rows[0] ?? null;
        if (!header) return conversationOf(null, []);
        type Bounded = Omit<StoredConversationRow, "metadata"> & { metadata: string | null; rowid: string };
        const rows = (await client.query<Bounded>(PG_CONVERSATION_BOUNDED_SQL, [taskId, CONVERSATION_ROWS, INLINE_METADATA_BYTES])).rows;
        const summarized = [];
        // One large row in memory at a time: read, summarized, dropped.
        for (const { rowid, metadata, ...row } of rows) {
          const text = metadata ?? (await client.query<{ metadata: string }>(PG_MESSAGE_METADATA_SQL, [rowid])).rows[0]?.metadata ?? "";
          summarized.push(conversationRowOf({ ...row, metadata: text }));
        }
        return conversationOf(header, summarized);
      } finally {
        await client.query("commit");
      }
    },
    exportReads: pgExportReads(client),
    close: () => client.end(),
  };
}
