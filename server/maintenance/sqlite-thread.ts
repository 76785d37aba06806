import "server-only";
import { Worker } from "node:worker_threads";

/**
 * Long synchronous SQLite maintenance statements (VACUUM INTO, VACUUM,
 * integrity_check, the dbstat walks behind the stats) run on a worker
 * thread with their own connection, so a multi-second snapshot of a large
 * database does not freeze HTTP handling on the main event loop. The
 * thread's source is a plain CommonJS string that resolves the driver from
 * the app root itself, so no bundler analyses or rewrites it. Once started,
 * a statement runs to completion: SQLite offers no interruption through
 * this driver, so callers check cancellation before and after.
 */
export type SqliteThreadTask =
  | { kind: "vacuum-into"; file: string; target: string }
  | { kind: "integrity-check"; file: string }
  | { kind: "vacuum"; file: string; busyTimeoutMs: number }
  /** Read-only statements run inside one read transaction; returns each statement's rows. */
  | { kind: "read-batch"; file: string; statements: { sql: string; params: unknown[] }[] };

const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require("node:module").createRequire(workerData.root + "/package.json")("better-sqlite3");
const task = workerData.task;
let db;
try {
  if (task.kind === "vacuum") {
    db = new Database(task.file, { fileMustExist: true });
    db.pragma("busy_timeout = " + Number(task.busyTimeoutMs));
    db.exec("VACUUM");
    db.pragma("wal_checkpoint(TRUNCATE)");
    parentPort.postMessage({ ok: true, value: true });
  } else {
    db = new Database(task.file, { readonly: true, fileMustExist: true });
    if (task.kind === "read-batch") {
      db.pragma("busy_timeout = 5000");
      const read = db.transaction(() => task.statements.map((s) => db.prepare(s.sql).all(...s.params)));
      parentPort.postMessage({ ok: true, value: read() });
    } else if (task.kind === "vacuum-into") {
      db.pragma("busy_timeout = 5000");
      db.prepare("VACUUM INTO ?").run(task.target);
      parentPort.postMessage({ ok: true, value: true });
    } else {
      const rows = db.pragma("integrity_check");
      parentPort.postMessage({ ok: true, value: rows.length === 1 && rows[0].integrity_check === "ok" });
    }
  }
} catch (error) {
  parentPort.postMessage({ ok: false, code: error && error.code ? String(error.code) : "error" });
} finally {
  if (db && db.open) db.close();
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
    worker.once("message", (message: { ok: boolean; value?: unknown; code?: string }) => {
      settled = true;
      if (message.ok) resolve(message.value);
      else reject(new SqliteThreadError(message.code ?? "error"));
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
