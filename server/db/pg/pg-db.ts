// PostgreSQL behind the asynchronous store boundary, on node-postgres: one
// pg.Pool per instance (PG_POOL_MAX sessions, shared with the checkpoint
// saver), so statements of different requests run on different sessions at
// once and none waits for another's round trip.
// - A statement outside a transaction takes any idle pooled session.
// - `transaction(fn)` holds one pooled session for the whole async callback
//   (BEGIN, the transaction's own timeouts with `set local`, an optional
//   advisory writer lock, in one round trip); which session a statement
//   belongs to comes from the async context (AsyncLocalStorage, one per
//   database), so nested calls of any store join the open transaction (as a
//   savepoint) without passing it around, and a statement of another
//   request never does.
// - `session()` opens a connection of its own outside the pool, for what
//   must live as long as a session: LISTEN, the worker lease, the
//   maintenance lock, the thread locks.
// Result columns come back as ours.types says (text stays text, integers
// are numbers); the saver's own queries keep node-postgres' parsers.
// - On a SQL_ASCII database every session talks SQL_ASCII too (see
//   keepDatabaseEncoding).
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import pg from "pg";
import type { PgConfig } from "./config";
import { PgError } from "./errors";
import { resultTypes } from "./types";

export type Row = Record<string, unknown>;

export type PgTransactionOptions = {
  /** This transaction's statement_timeout (`set local`), ms. */
  statementTimeoutMs?: number;
  /** This transaction's lock_timeout (`set local`), ms; it bounds the wait for `lock` too. */
  lockTimeoutMs?: number;
  /** One consistent read-only snapshot (repeatable read) instead of a writer transaction. */
  snapshot?: boolean;
  /** Transaction-scoped advisory lock taken first (pg_advisory_xact_lock of this key). */
  lock?: number;
};

/** What statements run on: the pool outside a transaction, the transaction's session inside. */
export type PgQueryable = {
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** The first row, or null. */
  one<T = Row>(sql: string, params?: readonly unknown[]): Promise<T | null>;
  /** Rows affected. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Several statements without parameters (one round trip). */
  exec(sql: string): Promise<void>;
};

/** A connection of its own, outside the pool. */
export type PgSession = PgQueryable & {
  readonly client: pg.Client;
  /** False once the connection failed or was closed (its session-level locks are gone with it). */
  readonly alive: boolean;
  /** Called once when the connection is lost (not after close()). */
  onLost(fn: (error: Error) => void): void;
  close(): Promise<void>;
};

export type PgDb = PgQueryable & {
  transaction<T>(fn: () => Promise<T> | T, options?: PgTransactionOptions): Promise<T>;
  /** True when called inside a transaction of this database. */
  inTransaction(): boolean;
  /** A new dedicated session (its own connection, the same settings). */
  session(purpose: string): Promise<PgSession>;
  /** The pool itself, for the checkpoint saver (one driver, one set of sessions). */
  readonly pool: pg.Pool;
  readonly config: PgConfig;
  /** Ends the pool (waits for checked-out sessions to be released). */
  close(): Promise<void>;
};

type Scope = { db: PgDb; client: pg.PoolClient; open: boolean; nested: Promise<unknown> };

/** A driver error as PgError (SQLSTATE kept); anything else unchanged. */
export function toPgError(error: unknown): unknown {
  if (error instanceof PgError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === "string" && "severity" in error) {
    const mapped = new PgError(error.message, code);
    mapped.stack = error.stack;
    return mapped;
  }
  return error;
}

// Statements the server plans once per session instead of at every call: a
// few hot ones (the compaction pass sends them thousands of times a pass, and
// planning its one-statement task probe costs more than running it). Named by
// their text's digest, so one name never stands for two texts. Filled when
// the modules that own those statements load; never changed after.
const preparedNames = new Map<string, string>();

/** Marks `sql` as planned once per session (see preparedNames); returns it unchanged. */
export function preparedStatement(sql: string): string {
  preparedNames.set(sql, `p_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`);
  return sql;
}

async function runOn<T>(target: pg.Pool | pg.ClientBase, sql: string, params: readonly unknown[] | undefined): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
  try {
    return await target.query<T & pg.QueryResultRow>({ text: sql, name: preparedNames.get(sql), values: params ? [...params] : undefined, types: resultTypes });
  } catch (error) {
    throw toPgError(error);
  }
}

function queryable(target: () => pg.Pool | pg.ClientBase): PgQueryable {
  return {
    query: async <T>(sql: string, params?: readonly unknown[]) => (await runOn<T>(target(), sql, params ?? [])).rows as T[],
    one: async <T>(sql: string, params?: readonly unknown[]) => ((await runOn<T>(target(), sql, params ?? [])).rows[0] as T | undefined) ?? null,
    run: async (sql: string, params?: readonly unknown[]) => (await runOn(target(), sql, params ?? [])).rowCount ?? 0,
    exec: async (sql: string) => {
      await runOn(target(), sql, undefined);
    },
  };
}

/** Connection settings every session of ours carries (sent at startup: no extra round trip). */
export function sessionConfig(config: PgConfig, suffix = ""): pg.ClientConfig {
  return {
    connectionString: config.url,
    statement_timeout: config.timeouts.statementTimeoutMs || undefined,
    lock_timeout: config.timeouts.lockTimeoutMs || undefined,
    application_name: `${config.applicationName}${suffix}`,
    // NOTICEs ("already exists, skipping") are not worth a log line.
    options: config.genericPlans ? "-c client_min_messages=warning -c plan_cache_mode=force_generic_plan" : "-c client_min_messages=warning",
  };
}

const int = (ms: number) => Math.max(0, Math.trunc(ms));

/**
 * node-postgres always asks for client_encoding UTF8 at startup. A SQL_ASCII
 * database holds any bytes, and the server refuses to send a UTF8 client a
 * value that is not UTF-8 ("invalid byte sequence"), so one such row would
 * fail every read of it. SQL_ASCII on the client side converts and checks
 * nothing: the bytes arrive as stored (decoded with U+FFFD where they are
 * not UTF-8, which the compaction store then re-reads as hex) and ours are
 * stored as sent. The server's encoding comes with the startup reply, so a
 * UTF8 database costs no extra round trip.
 */
class OurClient extends pg.Client {
  private serverEncoding: string | undefined;
  constructor(config?: pg.ClientConfig) {
    super(config);
    this.connection.on("parameterStatus", (message: { parameterName: string; parameterValue: string }) => {
      if (message.parameterName === "server_encoding") this.serverEncoding = message.parameterValue;
    });
  }

  // The pool connects with a callback, a session awaits: both see a connection that already talks SQL_ASCII.
  override connect(): Promise<pg.Client>;
  override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
  override connect(callback?: (error: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
    const connected = super.connect().then(async () => {
      if (this.serverEncoding === "SQL_ASCII") await this.query(`set client_encoding = 'SQL_ASCII'`);
      return this as pg.Client;
    });
    if (!callback) return connected;
    connected.then(
      (client) => callback(null, client),
      (error: Error) => callback(error),
    );
  }
}

/** Creates the pool (it connects on first use). */
export function createPgDb(config: PgConfig, options: { onIdleError?: (error: Error) => void } = {}): PgDb {
  const pool = new pg.Pool({ ...sessionConfig(config), max: config.poolMax, idleTimeoutMillis: 30_000, Client: OurClient });
  // An idle session the server ends (restart, admin kill) must not crash the process; the next query reconnects.
  pool.on("error", (error) => options.onIdleError?.(error));
  const scopes = new AsyncLocalStorage<Scope>();
  let savepoints = 0;

  const current = (): Scope | undefined => {
    const scope = scopes.getStore();
    return scope && scope.db === db && scope.open ? scope : undefined;
  };

  const savepoint = <T>(parent: Scope, fn: () => Promise<T> | T, lock: number | undefined): Promise<T> => {
    const run = async (): Promise<T> => {
      if (!parent.open) throw new Error("the enclosing transaction has already ended");
      const name = `sp_${++savepoints}`;
      // A nested writer transaction still takes its domain's lock (the outer one may be another domain's): held
      // until the top-level transaction ends (or this savepoint rolls back); taking a held one again does not wait.
      await runOn(parent.client, lock === undefined ? `savepoint ${name}` : `savepoint ${name}; select pg_advisory_xact_lock(${Math.trunc(lock)})`, undefined);
      const scope: Scope = { db, client: parent.client, open: true, nested: Promise.resolve() };
      try {
        const result = await scopes.run(scope, fn);
        scope.open = false;
        await runOn(parent.client, `release savepoint ${name}`, undefined);
        return result;
      } catch (error) {
        scope.open = false;
        try {
          await runOn(parent.client, `rollback to savepoint ${name}; release savepoint ${name}`, undefined);
        } catch {
          // The original error says what went wrong; the outer transaction fails with it.
        }
        throw toPgError(error);
      }
    };
    const result = parent.nested.then(run, run);
    parent.nested = result.catch(() => undefined);
    return result;
  };

  const db: PgDb = {
    ...queryable(() => current()?.client ?? pool),
    pool,
    config,

    async transaction(fn, txOptions = {}) {
      const parent = current();
      // A savepoint keeps the outer transaction's timeouts (a `set local` there would outlive it) and snapshot.
      if (parent) return savepoint(parent, fn, txOptions.lock);
      const client = await pool.connect();
      const scope: Scope = { db, client, open: true, nested: Promise.resolve() };
      let broken: Error | undefined;
      // A checked-out session has no listener of the pool's: a server that ends it between two statements
      // (restart, pg_terminate_backend) would otherwise raise an unhandled 'error' and end the process. The next
      // statement fails with it, and the session is destroyed instead of returned.
      const onError = (error: Error) => {
        broken ??= error;
      };
      client.on("error", onError);
      try {
        // One round trip: begin, this transaction's timeouts, its lock.
        const head = [txOptions.snapshot ? "begin isolation level repeatable read read only" : "begin"];
        if (txOptions.statementTimeoutMs !== undefined) head.push(`set local statement_timeout = ${int(txOptions.statementTimeoutMs)}`);
        if (txOptions.lockTimeoutMs !== undefined) head.push(`set local lock_timeout = ${int(txOptions.lockTimeoutMs)}`);
        if (txOptions.lock !== undefined) head.push(`select pg_advisory_xact_lock(${Math.trunc(txOptions.lock)})`);
        try {
          await runOn(client, head.join("; "), undefined);
          const result = await scopes.run(scope, fn);
          scope.open = false;
          await runOn(client, "commit", undefined);
          return result;
        } catch (error) {
          scope.open = false;
          try {
            await runOn(client, "rollback", undefined);
          } catch (rollbackError) {
            // The session is unusable: it is destroyed instead of returned to the pool.
            broken = rollbackError as Error;
          }
          throw toPgError(error);
        }
      } finally {
        client.removeListener("error", onError);
        client.release(broken);
      }
    },

    inTransaction: () => current() !== undefined,

    session: (purpose) => openSession(config, purpose),

    async close() {
      await pool.end();
    },
  };
  return db;
}

/** A dedicated connection with our session settings. */
export async function openSession(config: PgConfig, purpose: string): Promise<PgSession> {
  const client = new OurClient(sessionConfig(config, ` ${purpose}`));
  let alive = false;
  let closing = false;
  const lost: Array<(error: Error) => void> = [];
  const fail = (error: Error) => {
    if (!alive) return;
    alive = false;
    if (closing) return;
    for (const fn of lost.splice(0)) fn(error);
  };
  client.on("error", fail);
  client.on("end", () => fail(new Error("the PostgreSQL session ended")));
  try {
    await client.connect();
  } catch (error) {
    client.removeAllListeners("error");
    void client.end().catch(() => undefined);
    // The driver's message names host and user, never the password.
    throw new PgError(`cannot connect to PostgreSQL: ${(error as Error).message.trim()}`, (error as { code?: string }).code);
  }
  alive = true;
  return {
    ...queryable(() => client),
    client,
    get alive() {
      return alive;
    },
    onLost(fn) {
      lost.push(fn);
    },
    async close() {
      if (closing) return;
      closing = true;
      alive = false;
      try {
        await client.end();
      } catch {
        // Already gone.
      }
    },
  };
}
