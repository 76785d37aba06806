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

// One persistent thread per lane: it loads the driver once, then answers
// one task per message, in order, until the process exits (ref'd only while
// a task is in flight: an idle thread never keeps the process alive). Each
// task opens and closes its own connection, so a restore that swaps the file
// is seen by the next task.
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const execute = (${executeTask.toString()});
let Driver;
try {
  Driver = require("node:module").createRequire(workerData.root + "/package.json")("better-sqlite3");
} catch (error) {
  Driver = null;
}
parentPort.on("message", ({ id, task }) => {
  if (!Driver) {
    parentPort.postMessage({ id, ok: false, driverMissing: true, code: "driver_missing" });
    return;
  }
  try {
    parentPort.postMessage({ id, ok: true, value: execute(Driver, task) });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, code: error && error.code ? String(error.code) : "error" });
  }
});
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

/** Threads this process started (observable for tests: one per lane, not one per request). */
export const threadStarts = { count: 0 };

type Reply = { id: number; ok: boolean; value?: unknown; code?: string; driverMissing?: boolean };
type Job = { id: number; task: SqliteThreadTask; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/**
 * Reads (the stats walks) and maintenance statements (VACUUM, VACUUM INTO,
 * integrity checks: minutes on a large file) have a lane each, so a long
 * VACUUM INTO never holds the Database page's statistics back. A lane runs
 * its tasks one at a time, in order.
 */
type LaneName = "reads" | "maintenance";

class Lane {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private nextId = 1;

  constructor(private readonly root: string) {}

  run(task: SqliteThreadTask): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.pump();
    });
  }

  private start(): Worker {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { root: this.root } });
    threadStarts.count += 1;
    worker.on("message", (reply: Reply) => this.settle(reply));
    // A crashed thread fails its task; the next task starts a new one.
    const lost = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const job = this.current;
      this.current = null;
      job?.reject(error instanceof Error ? error : new SqliteThreadError("thread_exit"));
      this.pump();
    };
    worker.on("error", lost);
    worker.on("exit", (exitCode) => lost(new SqliteThreadError(`exit_${exitCode}`)));
    return worker;
  }

  private pump(): void {
    if (this.current) return;
    if (this.queue.length === 0) {
      // Idle: the thread must not keep the process alive (a CLI exits when
      // its work is done). Set after the listeners, which ref it again.
      this.worker?.unref();
      return;
    }
    const job = this.queue.shift()!;
    this.current = job;
    this.worker ??= this.start();
    // Busy: a task in flight keeps the process alive until it is answered.
    this.worker.ref();
    this.worker.postMessage({ id: job.id, task: job.task });
  }

  private settle(reply: Reply): void {
    const job = this.current;
    if (!job || job.id !== reply.id) return;
    this.current = null;
    if (reply.ok) job.resolve(reply.value);
    else if (reply.driverMissing) {
      inlineFallbacks.count += 1;
      try {
        job.resolve(runInline(job.task));
      } catch (error) {
        job.reject(error);
      }
    } else job.reject(new SqliteThreadError(reply.code ?? "error"));
    this.pump();
  }
}

// Per lane and app root (where the thread resolves the driver from).
// Process-wide like libuv's pool, not a runtime's: each task names its file
// and opens its own connection, so a lane holds no runtime's state, and the
// idle threads are unref'd (they never keep a process alive).
const lanes = new Map<string, Lane>();

function runThread(task: SqliteThreadTask): Promise<unknown> {
  const lane: LaneName = task.kind === "read-batch" ? "reads" : "maintenance";
  const root = process.cwd();
  const key = `${lane}\u0000${root}`;
  let found = lanes.get(key);
  if (!found) {
    found = new Lane(root);
    lanes.set(key, found);
  }
  return found.run(task);
}
