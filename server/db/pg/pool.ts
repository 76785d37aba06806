// A bounded set of synchronous connections for one process. Calls are
// blocking, so one connection serves every request in turn; more are opened
// only for work that must hold its own session (a transaction left open
// across a pause, a worker's advisory lock), up to PG_POOL_MAX.
import { connectPg, type SqlClient } from "./client";
import type { PgConfig } from "./config";

export type PgPool = {
  /** The shared connection that request handlers' stores use. */
  readonly main: SqlClient;
  /** A dedicated connection; `release` returns it. Throws beyond PG_POOL_MAX. */
  acquire(): SqlClient;
  release(client: SqlClient): void;
  readonly size: number;
  close(): void;
};

export function createPgPool(config: PgConfig): PgPool {
  const open = (): SqlClient => connectPg({ url: config.url, timeouts: config.timeouts, applicationName: config.applicationName });
  const main = open();
  const idle: SqlClient[] = [];
  const all = new Set<SqlClient>([main]);

  return {
    main,
    acquire() {
      const reused = idle.pop();
      if (reused) return reused;
      if (all.size >= config.poolMax) throw new Error(`PostgreSQL pool exhausted (PG_POOL_MAX=${config.poolMax})`);
      const client = open();
      all.add(client);
      return client;
    },
    release(client) {
      if (client === main || !all.has(client)) return;
      if (client.inTransaction) throw new Error("a connection was released inside a transaction");
      idle.push(client);
    },
    get size() {
      return all.size;
    },
    close() {
      for (const client of all) client.close();
      all.clear();
      idle.length = 0;
    },
  };
}
