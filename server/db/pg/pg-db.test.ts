// PgDb on a session the server ends mid-transaction: the transaction fails
// with the driver's error, the session is not returned to the pool, and
// nothing is raised outside (an unhandled 'error' would end the process).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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
