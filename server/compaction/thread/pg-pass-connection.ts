// The cleanup slice's own sessions on PostgreSQL (the slice thread's): a
// small node-postgres pool of its own on the server the runtime uses, so the
// pass's statements, the decoding of its pages and its reducer all run off
// the serving thread, and the runtime's pool stays for requests. Two
// sessions: the batch's writer transaction and the read of the next batch
// beside it (cleanup/open-batch.ts); fewer when PG_POOL_MAX is smaller
// (thread-config.ts derives the settings).
import "server-only";
import type { PgConfig } from "@/server/db/pg/config";
import { createPgDb } from "@/server/db/pg/pg-db";
import type { Logger } from "@/server/log";
import type { CompactionStore } from "../store";
import { createPgCompactionStore } from "../store/pg-store";

export type PgPassStore = {
  store: CompactionStore;
  /** Opens a first session (before the slice reads anything), so a server without a slot for the pass says so at once. */
  connect(): Promise<void>;
  /** Ends the pool's sessions. */
  close(): Promise<void>;
};

export function openPgPassStore(config: PgConfig, options: { log?: Pick<Logger, "warn"> } = {}): PgPassStore {
  // An idle session the server ends is reopened by the next statement; each such loss is logged with its code, never the URL.
  const db = createPgDb(config, { onIdleError: (error) => options.log?.warn({ code: (error as { code?: unknown }).code ?? null }, "pass session lost while idle") });
  return {
    store: createPgCompactionStore(db),
    connect: async () => void (await db.one("select 1")),
    close: () => db.close(),
  };
}
