// A cleanup slice on its worker thread against PostgreSQL: the thread opens a
// small pool of its own on the runtime's server and runs the same pass, so
// the stored bytes, the counts and the record must be those of the inline
// pass on the same rows (hostile bytes and a refused rewrite included), and
// its sessions must be gone once the slice has settled.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { readPgConfig } from "@/server/db/pg/config";
import { createPgDb } from "@/server/db/pg/pg-db";
import { withDatabase } from "@/server/db/pg/url";
import { createLogger } from "@/server/log";
import { createSliceRunner } from "../worker/cleanup-slice";
import { newPassThreadState } from "../worker/worker-types";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { buildPassThreadBundle } from "@/scripts/lib/pass-thread-bundle";
import { runCleanupPass } from "../cleanup/pass";
import type { BatchCommitted } from "../cleanup/pass-options";
import { hostileWorkspaceRows } from "../cleanup/hostile-workspace-test-support";
import { readCompactionRecord } from "../policy/record";
import { createPgBytesDb, insertPgBytes, insertPgTask, type PgBytesDb } from "../store/pg-bytes-test-support";
import { createPgCompactionStore } from "../store/pg-store";
import { NOW_MS, armPolicyOn, shellMetadata } from "../test-support";
import { runPassInThread } from "./run-in-thread";
import { passThreadFromEnv, pgPassConfig } from "./thread-config";

/** Old tasks of shell rows, the hostile rows beside them, and a rewrite the server refuses (a trigger). */
async function seed(db: PgBytesDb): Promise<void> {
  await armPolicyOn(createPgCompactionStore(db.db), { value: 1, unit: "weeks" }, NOW_MS);
  for (const task of ["a", "h", "z"]) await insertPgTask(db.db, task);
  for (const task of ["a", "z"]) {
    for (let i = 0; i < 12; i++) await insertPgBytes(db.db, { id: `${task}-m${i}`, sessionId: `${task}-s1`, type: "tool_execute", bytes: Buffer.from(shellMetadata(`c${i}`, "x".repeat(700))), storage: "text" });
  }
  for (const [name, row] of Object.entries(hostileWorkspaceRows()).filter(([, row]) => !row.bytes.includes(0))) {
    await insertPgBytes(db.db, { id: name, sessionId: "h-s1", ...row });
  }
  await db.db.exec(`create function refuse_a_m3() returns trigger language plpgsql as $$ begin raise exception 'kept by policy'; end $$;
    create trigger refuse_a_m3 before update of metadata on messages for each row when (old.id = 'a-m3') execute function refuse_a_m3()`);
}

/** Every message as stored: its bytes in hex (SQL_ASCII keeps them exact), in rowid order. */
const dump = (db: PgBytesDb) =>
  db.db.query(`select rowid, id, type, updated_at, encode(convert_to(metadata, 'SQL_ASCII'), 'hex') as hex, metadata is null as "isNull" from messages order by rowid`);

const passSessions = async (db: PgBytesDb, applicationName: string) =>
  Number((await db.db.one<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = current_database() and application_name = $1`, [applicationName]))?.n);

describe.skipIf(!TEST_POSTGRES_URL)("cleanup slice on a worker thread, on PostgreSQL", () => {
  let bundleDir = "";
  let bundlePath = "";
  const dbs: PgBytesDb[] = [];
  beforeAll(async () => {
    bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "ws-pg-pass-thread-"));
    bundlePath = path.join(bundleDir, "pass-thread.cjs");
    await buildPassThreadBundle({ outFile: bundlePath });
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
    fs.rmSync(bundleDir, { recursive: true, force: true });
  });
  const freshDb = async () => {
    const db = await createPgBytesDb();
    dbs.push(db);
    await seed(db);
    return db;
  };

  it("writes exactly the bytes, counts and record the inline pass writes on the same rows, and closes its own pool's sessions", async () => {
    const [inline, threaded] = [await freshDb(), await freshDb()];
    expect(await dump(threaded)).toEqual(await dump(inline));
    const inlineResult = await runCleanupPass({ store: createPgCompactionStore(inline.db), clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {}, yieldMs: 0, maxBatchRows: 10 });
    const config = pgPassConfig(threaded.db.config);
    const batches: BatchCommitted[] = [];
    const slices = { started: 0, running: 0 };
    const threadResult = await runPassInThread({
      thread: { bundlePath, postgres: config },
      database: { engine: "postgres", config },
      slices,
      clock: manualClock(NOW_MS),
      operationId: "run-1",
      limits: { fixedClock: true, yieldMs: 0, maxBatchRows: 10 },
      onBatch: (event) => void batches.push(event),
    });
    expect(inlineResult).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(inlineResult.operation?.skipped.write_refused).toBe(1);
    expect(inlineResult.operation!.changedMessages).toBeGreaterThan(20);
    expect(threadResult).toEqual(inlineResult);
    expect(slices).toEqual({ started: 1, running: 0 });
    expect(batches.reduce((sum, batch) => sum + batch.rows, 0)).toBe(inlineResult.operation?.changedMessages);
    expect(await dump(threaded)).toEqual(await dump(inline));
    const records = await Promise.all([inline, threaded].map((db) => readCompactionRecord(createPgCompactionStore(db.db))));
    expect(records[1]).toEqual(records[0]);
    // The slice settles once its thread has exited: its pool's sessions are closed by then.
    expect(await passSessions(threaded, config.applicationName)).toBe(0);
  });

  it("[TPR-SCH-07] a cancel set on the main thread ends the thread's pass cancelled at a batch boundary, keeping committed batches", async () => {
    const db = await freshDb();
    const config = pgPassConfig(db.db.config);
    let stop = false;
    const result = await runPassInThread({
      thread: { bundlePath, postgres: config },
      database: { engine: "postgres", config },
      slices: { started: 0, running: 0 },
      clock: manualClock(NOW_MS),
      operationId: "run-1",
      limits: { fixedClock: true, yieldMs: 0, maxBatchRows: 5 },
      shouldStop: () => stop,
      onBatch: () => void (stop = true),
    });
    expect(result).toMatchObject({ state: "cancelled", reason: "cancelled", continuation: false });
    expect(result.operation).toMatchObject({ state: "cancelled", changedMessages: 5 });
    const read = await readCompactionRecord(createPgCompactionStore(db.db));
    expect(read.state === "malformed" ? null : read.record.runtime.latestRun).toMatchObject({ id: "run-1", state: "cancelled", changedMessages: 5 });
  });

  it("the runtime picks the thread on PostgreSQL, with a pool of at most two sessions under its own name (fewer when PG_POOL_MAX is lower)", () => {
    const log = { warn() {}, info() {} };
    const pick = (env: Record<string, string>) =>
      passThreadFromEnv({ env: {}, engine: "postgres", postgres: readPgConfig(TEST_POSTGRES_URL!, env), injectedClock: false, log, bundlePath });
    expect(pick({})).toMatchObject({ reason: "thread", settings: { bundlePath, postgres: { poolMax: 2, applicationName: "agent-storage-retention pass" } } });
    expect(pick({ PG_POOL_MAX: "1", PG_APPLICATION_NAME: "site-a" })).toMatchObject({ settings: { postgres: { poolMax: 1, applicationName: "site-a pass" } } });
    expect(passThreadFromEnv({ env: {}, engine: "postgres", postgres: null, injectedClock: false, log, bundlePath }).reason).toBe("engine");
  });

  it("the pass's sessions plan each prepared statement once (force_generic_plan); the runtime's keep the server's default", async () => {
    const runtime = readPgConfig(TEST_POSTGRES_URL!, {});
    const modes: string[] = [];
    for (const config of [pgPassConfig(runtime), runtime]) {
      const db = createPgDb(config);
      try {
        modes.push((await db.one<{ plan_cache_mode: string }>("show plan_cache_mode"))!.plan_cache_mode);
      } finally {
        await db.close();
      }
    }
    expect(modes).toEqual(["force_generic_plan", "auto"]);
  });

  it("a slice whose own pool cannot open a session runs inline on the runtime's pool, says so with the code only, and the next slice tries its thread again", async () => {
    const db = await freshDb();
    const lines: Array<{ msg: string; code?: string | null }> = [];
    const log = createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    // The same server, a database that does not exist: the login is refused (3D000) before anything is read.
    const unreachable = pgPassConfig(readPgConfig(withDatabase(TEST_POSTGRES_URL!, "no_such_database_here"), {}));
    const passThreadState = newPassThreadState();
    const runSlice = createSliceRunner({ passThread: { bundlePath, postgres: unreachable }, passThreadState, dbFile: "", clock: manualClock(NOW_MS), log });
    const slice = (operationId: string) =>
      runSlice({ store: createPgCompactionStore(db.db), clock: manualClock(NOW_MS), operationId, wait: async () => {}, yieldMs: 0, admitBatch: async () => ({ release() {} }) });
    expect(await slice("run-1")).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(lines).toEqual([expect.objectContaining({ msg: "cleanup thread could not open its sessions: this slice runs inline", code: "3D000" })]);
    expect(JSON.stringify(lines)).not.toContain("no_such_database_here");
    expect(passThreadState).toMatchObject({ unavailable: false, started: 1, running: 0 });
    await slice("run-2");
    expect(passThreadState.started).toBe(2);
  });
});
