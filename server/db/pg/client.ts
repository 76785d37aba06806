// A synchronous PostgreSQL connection. Store interfaces are synchronous
// (domain code runs check-then-write steps inside one transaction callback
// without awaiting), so PostgreSQL is reached through libpq's blocking
// calls (pg-native's querySync), like better-sqlite3 reaches SQLite. A
// blocking call holds the event loop for its round trip: keep statements
// short and bounded by statement_timeout.
import { createRequire } from "node:module";
import path from "node:path";
import type Native from "pg-native";
import { DEFAULT_TIMEOUTS, type PgTimeouts } from "./config";
import { PgError } from "./errors";
import { resultTypes, toParam } from "./types";

export type Row = Record<string, unknown>;

export type TransactionOptions = Partial<PgTimeouts> & {
  /** One consistent read-only snapshot (repeatable read) instead of a writer transaction. */
  snapshot?: boolean;
};

export type SqlClient = {
  /** Rows of one parameterized statement ($1, $2, ...). */
  query<T = Row>(sql: string, params?: readonly unknown[]): T[];
  /** The first row, or null. */
  one<T = Row>(sql: string, params?: readonly unknown[]): T | null;
  /** Rows affected by one parameterized statement. */
  run(sql: string, params?: readonly unknown[]): number;
  /** Several statements without parameters (migrations, session settings). */
  exec(sql: string): void;
  /**
   * Runs the synchronous `fn` in a transaction: commit when it returns,
   * roll back when it throws. Nested calls become savepoints. Timeouts given
   * here apply to this transaction only (`set local`).
   */
  transaction<T>(fn: (client: SqlClient) => T, options?: TransactionOptions): T;
  readonly inTransaction: boolean;
  /**
   * NOTIFY messages that arrived for this session's LISTENs since the last
   * call, read without blocking (libpq buffers them; nothing else reads the
   * socket of a synchronous connection).
   */
  drainNotifications(): Array<{ channel: string; payload: string; pid: number }>;
  close(): void;
};

export { PgError, SQLSTATE } from "./errors";

// pg-native is an optional dependency (its libpq binding compiles against
// libpq-dev): it is loaded on the first connection, so SQLite installs and
// test runs without it never need the binding.
let nativeClass: typeof Native | undefined;

function loadNative(): typeof Native {
  if (nativeClass) return nativeClass;
  try {
    nativeClass = createRequire(path.join(process.cwd(), "package.json"))("pg-native") as typeof Native;
  } catch (error) {
    throw new Error(
      `the PostgreSQL client (pg-native) is not installed or its libpq binding did not build: install libpq-dev, then npm ci (${(error as Error).message.split("\n")[0]})`,
    );
  }
  return nativeClass;
}

export type ConnectOptions = { url: string; timeouts?: PgTimeouts; applicationName?: string };

// libpq's finish() hands the socket's poll handle to libuv for closing and
// then lets the binding be garbage collected; if a collection frees it before
// the event loop's close phase, libuv aborts the process. Closed bindings are
// kept until the loop has turned twice (the close phase runs in between).
const closing = new Set<Native>();

function releaseAfterClose(native: Native): void {
  closing.add(native);
  setImmediate(() => setImmediate(() => closing.delete(native)));
}

function setting(name: string, value: string | number): string {
  return `set ${name} = '${String(value).replace(/'/g, "''")}'`;
}

export function connectPg(options: ConnectOptions): SqlClient {
  const NativeClient = loadNative();
  const native = new NativeClient({ types: resultTypes });
  try {
    native.connectSync(options.url);
  } catch (error) {
    // libpq's message names host and user, never the password.
    throw new PgError(`cannot connect to PostgreSQL: ${(error as Error).message.trim()}`, undefined);
  }
  let depth = 0;
  let closed = false;

  const call = (sql: string, params?: readonly unknown[]): Row[] => {
    if (closed) throw new Error("PostgreSQL connection is closed");
    try {
      return params ? native.querySync(sql, params.map(toParam)) : native.querySync(sql);
    } catch (error) {
      const fields = native.pq.resultErrorFields();
      throw new PgError(fields?.messagePrimary ?? (error as Error).message.trim(), fields?.sqlState);
    }
  };

  const client: SqlClient = {
    query: <T>(sql: string, params?: readonly unknown[]) => call(sql, params ?? []) as T[],
    one: <T>(sql: string, params?: readonly unknown[]) => (call(sql, params ?? [])[0] as T | undefined) ?? null,
    run(sql, params) {
      call(sql, params ?? []);
      return Number(native.pq.cmdTuples() || 0);
    },
    exec(sql) {
      call(sql);
    },
    transaction<T>(fn: (c: SqlClient) => T, txOptions: TransactionOptions = {}): T {
      const savepoint = depth > 0 ? `sp_${depth}` : null;
      call(savepoint ? `savepoint ${savepoint}` : txOptions.snapshot ? "begin isolation level repeatable read read only" : "begin");
      depth++;
      let result: T;
      try {
        if (txOptions.statementTimeoutMs !== undefined) call(`set local statement_timeout = ${Math.trunc(txOptions.statementTimeoutMs)}`);
        if (txOptions.lockTimeoutMs !== undefined) call(`set local lock_timeout = ${Math.trunc(txOptions.lockTimeoutMs)}`);
        result = fn(client);
        if (result && typeof (result as { then?: unknown }).then === "function") {
          throw new TypeError("transaction callbacks are synchronous; an awaited step would run outside the transaction");
        }
      } catch (error) {
        depth--;
        try {
          call(savepoint ? `rollback to savepoint ${savepoint}; release savepoint ${savepoint}` : "rollback");
        } catch {
          // The original error says what went wrong.
        }
        throw error;
      }
      depth--;
      // A failed commit (e.g. a deferred constraint) ends the transaction on the server too.
      call(savepoint ? `release savepoint ${savepoint}` : "commit");
      return result;
    },
    get inTransaction() {
      return depth > 0;
    },
    drainNotifications() {
      if (closed) throw new Error("PostgreSQL connection is closed");
      if (!native.pq.consumeInput()) throw new PgError("the PostgreSQL connection was lost", undefined);
      const out: Array<{ channel: string; payload: string; pid: number }> = [];
      for (let n = native.pq.notifies(); n; n = native.pq.notifies()) out.push({ channel: n.relname, payload: n.extra, pid: n.be_pid });
      return out;
    },
    close() {
      if (closed) return;
      closed = true;
      native.end();
      releaseAfterClose(native);
    },
  };

  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  client.exec(
    [
      setting("statement_timeout", timeouts.statementTimeoutMs),
      setting("lock_timeout", timeouts.lockTimeoutMs),
      setting("application_name", options.applicationName ?? "agent-storage-retention"),
      // libpq prints NOTICEs to stderr; "already exists, skipping" is not worth a log line.
      setting("client_min_messages", "warning"),
    ].join(";"),
  );
  return client;
}
