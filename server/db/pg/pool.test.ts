import { describe, expect, it } from "vitest";
import { readPgConfig } from "./config";
import { createPgPool } from "./pool";
import { createPgTestDb, TEST_POSTGRES_URL } from "./test-db";

describe("readPgConfig", () => {
  it("reads pool size and timeouts from the environment, with defaults", () => {
    expect(readPgConfig("postgres://h/db", {})).toEqual({
      url: "postgres://h/db",
      poolMax: 4,
      timeouts: { statementTimeoutMs: 30_000, lockTimeoutMs: 5_000 },
      applicationName: "agent-storage-retention",
    });
    const env = { PG_POOL_MAX: "2", PG_STATEMENT_TIMEOUT_MS: "0", PG_LOCK_TIMEOUT_MS: "250", PG_APPLICATION_NAME: "node-a" };
    expect(readPgConfig("postgres://h/db", env)).toMatchObject({ poolMax: 2, timeouts: { statementTimeoutMs: 0, lockTimeoutMs: 250 }, applicationName: "node-a" });
    expect(() => readPgConfig("postgres://h/db", { PG_POOL_MAX: "0" })).toThrow(/PG_POOL_MAX/);
    expect(() => readPgConfig("postgres://h/db", { PG_LOCK_TIMEOUT_MS: "soon" })).toThrow(/PG_LOCK_TIMEOUT_MS/);
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("createPgPool", () => {
  it("opens at most PG_POOL_MAX sessions, reuses released ones and applies the session timeouts", async () => {
    const db = await createPgTestDb();
    const pool = createPgPool(readPgConfig(db.url, { PG_POOL_MAX: "2", PG_LOCK_TIMEOUT_MS: "1234", PG_APPLICATION_NAME: "pool-test" }));
    try {
      const worker = pool.acquire();
      expect(() => pool.acquire()).toThrow(/PG_POOL_MAX=2/);
      const pid = (c: typeof worker) => c.one<{ pid: number }>(`select pg_backend_pid() as pid`)!.pid;
      expect(pid(worker)).not.toBe(pid(pool.main));
      pool.release(worker);
      expect(pool.acquire()).toBe(worker);
      expect(worker.one(`select current_setting('lock_timeout') as lock, current_setting('application_name') as app`)).toEqual({
        lock: "1234ms",
        app: "pool-test",
      });
      expect(pool.size).toBe(2);
    } finally {
      pool.close();
      await db.close();
    }
  });
});
