// PgDb on a session the server ends mid-transaction: the transaction fails
// with the driver's error, the session is not returned to the pool, and
// nothing is raised outside (an unhandled 'error' would end the process).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readPgConfig } from "./config";
import { createPgDb } from "./pg-db";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./test-db";

describe.skipIf(!TEST_POSTGRES_URL)("a transaction whose session the server ends", () => {
  let t: PgTestDb;
  beforeAll(async () => {
    t = await createPgTestDb();
  });
  afterAll(async () => t?.close());

  it("fails that transaction only; the pool serves the next one on a new session", async () => {
    const unhandled = vi.fn();
    process.on("uncaughtException", unhandled);
    try {
      const { db } = t;
      let pid = 0;
      const failed = db.transaction(async () => {
        pid = (await db.one<{ pid: number }>("select pg_backend_pid() as pid"))!.pid;
        // Ended between two statements, while the pool has the session checked out.
        const other = await db.session("terminator");
        try {
          await other.query("select pg_terminate_backend($1)", [pid]);
        } finally {
          await other.close();
        }
        await vi.waitFor(async () => {
          const alive = await db.pool.query("select 1 from pg_stat_activity where pid = $1", [pid]);
          expect(alive.rowCount).toBe(0);
        });
        await db.query("select 1");
      });
      await expect(failed).rejects.toThrow();
      const next = await db.transaction(async () => (await db.one<{ pid: number }>("select pg_backend_pid() as pid"))!.pid);
      expect(next).not.toBe(pid);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("uncaughtException", unhandled);
    }
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("the pool's sessions", () => {
  let t: PgTestDb;
  beforeAll(async () => {
    t = await createPgTestDb();
  });
  afterAll(async () => t?.close());

  it("opens at most PG_POOL_MAX sessions (a third transaction waits for one), each with the configured lock timeout and application name", async () => {
    const db = createPgDb(readPgConfig(t.url, { PG_POOL_MAX: "2", PG_LOCK_TIMEOUT_MS: "1234", PG_APPLICATION_NAME: "pool-test" }));
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const pids: number[] = [];
      const settings = async () => {
        const row = await db.one<{ pid: number; lock: string; app: string }>(`select pg_backend_pid() as pid, current_setting('lock_timeout') as lock, current_setting('application_name') as app`);
        pids.push(row!.pid);
        return { lock: row!.lock, app: row!.app };
      };
      const first = [db.transaction(async () => [await settings(), await held]), db.transaction(async () => [await settings(), await held])];
      await vi.waitFor(() => expect(pids).toHaveLength(2));
      let thirdRan = false;
      const third = db.transaction(async () => {
        thirdRan = true;
        return settings();
      });
      // Both sessions are checked out: the third waits in the pool's queue instead of opening a session.
      await vi.waitFor(() => expect(db.pool.waitingCount).toBe(1));
      expect(thirdRan).toBe(false);
      expect(db.pool.totalCount).toBe(2);
      release();
      const answers = [...(await Promise.all(first)).map(([answer]) => answer), await third];
      expect(answers).toEqual(Array(3).fill({ lock: "1234ms", app: "pool-test" }));
      expect(new Set(pids).size).toBe(2);
      expect(db.pool.totalCount).toBe(2);
    } finally {
      await db.close();
    }
  });
});
