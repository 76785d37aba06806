import "server-only";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";

/**
 * Long synchronous SQLite maintenance statements (VACUUM INTO, VACUUM,
 * integrity_check, the dbstat walks behind the stats) run on a worker
 * thread with their own connection, so a multi-second snapshot of a large
 * database does not freeze HTTP handling on the main event loop. The
 * thread's source is a plain CommonJS string that resolves the driver from
 * the app root itself, so no bundler analyses or rewrites it; if the driver
 * cannot be loaded there, the same task runs inline (correct, only
 * blocking). Once started, a statement runs to completion: SQLite offers no
 * interruption through this driver, so callers check cancellation before
 * and after.
 */
export type SqliteThreadTask =
  | { kind: "vacuum-into"; file: string; target: string }
  | { kind: "integrity-check"; file: string }
  | { kind: "vacuum"; file: string; busyTimeoutMs: number }
  /** Read-only statements run inside one read transaction; returns each statement's rows. */
  | { kind: "read-batch"; file: string; statements: { sql: string; params: unknown[] }[] };

type DriverCtor = typeof Database;

/**
 * The task itself. It is serialized with toString() into the thread source,
 * so it must stay self-contained: no outer references, no named inner
 * functions (a transpiler could inject helpers into them).
 */
function executeTask(Driver: DriverCtor, task: SqliteThreadTask): unknown {
  const db = new Driver(task.file, { readonly: task.kind !== "vacuum", fileMustExist: true });
  try {
    db.pragma("busy_timeout = " + Number(task.kind === "vacuum" ? task.busyTimeoutMs : 5000));
    if (task.kind === "vacuum") {
      db.exec("VACUUM");
      db.pragma("wal_checkpoint(TRUNCATE)");
      return true;
    }
    if (task.kind === "vacuum-into") {
      db.prepare("VACUUM INTO ?").run(task.target);
      return true;
    }
    if (task.kind === "integrity-check") {
      const rows = db.pragma("integrity_check") as { integrity_check: string }[];
      return rows.length === 1 && rows[0]?.integrity_check === "ok";
    }
    const statements = task.statements;
    return db.transaction(() => statements.map((s) => db.prepare(s.sql).all(...s.params)))();
  } finally {
    db.close();
  }
}

const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const execute = (${executeTask.toString()});
let Driver;
try {
  Driver = require("node:module").createRequire(workerData.root + "/package.json")("better-sqlite3");
} catch (error) {
  parentPort.postMessage({ ok: false, driverMissing: true, code: "driver_missing" });
}
if (Driver) {
  try {
    parentPort.postMessage({ ok: true, value: execute(Driver, workerData.task) });
  } catch (error) {
    parentPort.postMessage({ ok: false, code: error && error.code ? String(error.code) : "error" });
  }
}
`;

/** Driver failure inside the thread; carries the SQLite code only, never a message. */
export class SqliteThreadError extends Error {
  readonly code: string;
  constructor(code: string) {
    super(`SQLite maintenance statement failed (${code})`);
    this.name = "SqliteThreadError";
    this.code = code;
  }
}

/** How often the inline fallback ran in this process (observable for tests and logs). */
export const inlineFallbacks = { count: 0 };

/** Runs the task on the calling thread (the fallback). */
export function runInline(task: SqliteThreadTask): unknown {
  try {
    return executeTask(Database, task);
  } catch (error) {
    throw new SqliteThreadError((error as { code?: unknown }).code ? String((error as { code?: unknown }).code) : "error");
  }
}

/** Runs one statement batch on the thread; one row array per statement. */
export async function readInThread(file: string, statements: { sql: string; params: unknown[] }[]): Promise<unknown[][]> {
  return (await runThread({ kind: "read-batch", file, statements })) as unknown[][];
}

/** Runs one task; resolves true/false for integrity-check, true otherwise. */
export async function runSqliteThread(task: Exclude<SqliteThreadTask, { kind: "read-batch" }>): Promise<boolean> {
  return (await runThread(task)) === true;
}

function runThread(task: SqliteThreadTask): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { task, root: process.cwd() } });
    let settled = false;
    worker.once("message", (message: { ok: boolean; value?: unknown; code?: string; driverMissing?: boolean }) => {
      settled = true;
      if (message.ok) resolve(message.value);
      else if (message.driverMissing) {
        inlineFallbacks.count += 1;
        try {
          resolve(runInline(task));
        } catch (error) {
          reject(error);
        }
      } else reject(new SqliteThreadError(message.code ?? "error"));
    });
    worker.once("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.once("exit", (exitCode) => {
      if (!settled) reject(new SqliteThreadError(`exit_${exitCode}`));
    });
  });
}
