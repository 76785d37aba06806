// SQLite behind the asynchronous store boundary. better-sqlite3 is
// synchronous and its transaction() takes a synchronous callback (an async
// one commits before the awaited steps run), so an async transaction needs
// its own mechanics:
// - one writer connection with a FIFO writer queue: a transaction is
//   BEGIN IMMEDIATE ... COMMIT around an async callback, and the next one
//   (or a single write outside any transaction) starts only after it ends,
//   so two transactions of this process never interleave on the connection;
// - a separate read connection (query_only): while a transaction is open
//   across awaits, other requests' reads go there and see the last committed
//   state (WAL gives each statement a committed snapshot), never the open
//   transaction's rows; reads inside the transaction use the writer and see
//   its own;
// - which transaction a statement belongs to comes from the async context
//   (AsyncLocalStorage, one per database), so nested calls of any store
//   join the open transaction (as a savepoint) without passing it around.
// Statements stay synchronous inside one verb: a read verb runs in one tick
// on one connection, and a multi-statement read wraps itself in a
// synchronous (deferred) transaction on the connection `reading()` names.
import { AsyncLocalStorage } from "node:async_hooks";
import { openDatabase, type DbHandle, type OpenOptions, type Sqlite } from "./client";
import { statement } from "./statements";

export type SqliteDb = DbHandle & {
  /** The writer connection (same as `sqlite`). */
  readonly writer: Sqlite;
  /**
   * The connection a read should use now: the writer inside a transaction
   * of this database (it sees its own rows), the read connection otherwise.
   * Use it within one synchronous step.
   */
  reading(): Sqlite;
  /**
   * Runs one synchronous write step on the writer: at once inside a
   * transaction of this database, otherwise after the transaction in
   * progress and those queued before it (as its own autocommit step).
   */
  write<T>(fn: (writer: Sqlite) => T): Promise<T>;
  /**
   * Runs `fn` in a writer transaction (BEGIN IMMEDIATE: the file's write
   * lock is taken first), after every transaction queued before it; commit
   * when it resolves, roll back when it rejects. Inside a transaction of
   * this database it runs as a savepoint of it (a rejection rolls back only
   * the savepoint).
   */
  transaction<T>(fn: () => Promise<T> | T): Promise<T>;
  /** True when called inside a transaction of this database. */
  inTransaction(): boolean;
  /**
   * Holds the writer queue for `fn` with no transaction open (no other
   * write of this process runs meanwhile): a restore copies the sign-in
   * state and closes the connection in one step.
   */
  exclusive<T>(fn: (writer: Sqlite) => Promise<T> | T): Promise<T>;
  readonly open: boolean;
  /** Waits for the transactions queued so far, then closes both connections. */
  close(): Promise<void>;
  /** Closes both connections now (inside `exclusive`, or at shutdown with nothing queued). */
  closeNow(): void;
};

type Scope = {
  db: SqliteDb;
  /** 0 for the transaction, n for a savepoint n levels below it (names repeat by depth: prepared once). */
  depth: number;
  /** False once the transaction (or savepoint) ended: later statements of leaked async work run outside it. */
  open: boolean;
  /** Savepoints of this scope run one at a time. */
  nested: Promise<unknown>;
};

export type SqliteDbOptions = OpenOptions & {
  /** Open the read connection (default true; the pass thread and bare tools pass false and read on the writer). */
  reader?: boolean;
};

/** Wraps an open writer connection (migrated) and opens its read connection. */
export function wrapSqliteDb(handle: DbHandle, options: { reader?: boolean; busyTimeoutMs?: number } = {}): SqliteDb {
  const writer = handle.sqlite;
  const reader = options.reader === false ? null : openDatabase({ file: handle.file, migrate: false, busyTimeoutMs: options.busyTimeoutMs });
  reader?.sqlite.pragma("query_only = 1");
  const scopes = new AsyncLocalStorage<Scope>();
  let holding = false;
  const waiters: Array<() => void> = [];

  const enter = (): Promise<void> => {
    if (!holding) {
      holding = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiters.push(resolve));
  };
  // The queue is handed to the next waiter directly, so a write arriving
  // meanwhile cannot overtake the transactions already waiting.
  const leave = () => {
    const next = waiters.shift();
    if (next) next();
    else holding = false;
  };
  const current = (): Scope | undefined => {
    const scope = scopes.getStore();
    return scope && scope.db === db && scope.open ? scope : undefined;
  };

  const savepoint = <T>(parent: Scope, fn: () => Promise<T> | T): Promise<T> => {
    const run = async (): Promise<T> => {
      if (!parent.open) throw new Error("the enclosing transaction has already ended");
      // Savepoints of one scope run one at a time, so a name per depth is unique among the open ones.
      const depth = parent.depth + 1;
      statement(writer, `savepoint sp_${depth}`).run();
      const scope: Scope = { db, depth, open: true, nested: Promise.resolve() };
      try {
        const result = await scopes.run(scope, fn);
        scope.open = false;
        statement(writer, `release sp_${depth}`).run();
        return result;
      } catch (error) {
        scope.open = false;
        if (writer.inTransaction) {
          statement(writer, `rollback to sp_${depth}`).run();
          statement(writer, `release sp_${depth}`).run();
        }
        throw error;
      }
    };
    const result = parent.nested.then(run, run);
    parent.nested = result.catch(() => undefined);
    return result;
  };

  const db: SqliteDb = {
    sqlite: writer,
    writer,
    file: handle.file,
    reading: () => (current() || !reader ? writer : reader.sqlite),

    async write(fn) {
      if (current() || !holding) return fn(writer);
      await enter();
      try {
        return fn(writer);
      } finally {
        leave();
      }
    },

    async transaction(fn) {
      const parent = current();
      if (parent) return savepoint(parent, fn);
      await enter();
      const scope: Scope = { db, depth: 0, open: true, nested: Promise.resolve() };
      try {
        statement(writer, "begin immediate").run();
        try {
          const result = await scopes.run(scope, fn);
          scope.open = false;
          statement(writer, "commit").run();
          return result;
        } catch (error) {
          scope.open = false;
          if (writer.inTransaction) statement(writer, "rollback").run();
          throw error;
        }
      } finally {
        leave();
      }
    },

    inTransaction: () => current() !== undefined,

    async exclusive(fn) {
      if (current()) throw new Error("exclusive() inside a transaction would wait for itself");
      await enter();
      try {
        return await fn(writer);
      } finally {
        leave();
      }
    },

    get open() {
      return writer.open;
    },

    async close() {
      await enter();
      try {
        db.closeNow();
      } finally {
        leave();
      }
    },

    closeNow() {
      if (reader?.sqlite.open) reader.sqlite.close();
      if (writer.open) writer.close();
    },
  };
  return db;
}

/** Opens the writer connection (migrated unless told otherwise) and its read connection. */
export function openSqliteDb(options: SqliteDbOptions): SqliteDb {
  const handle = openDatabase(options);
  try {
    return wrapSqliteDb(handle, { reader: options.reader, busyTimeoutMs: options.busyTimeoutMs });
  } catch (error) {
    handle.sqlite.close();
    throw error;
  }
}
