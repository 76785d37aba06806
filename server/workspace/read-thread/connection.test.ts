// The read connection on PostgreSQL outlives a server that ends it: an idle
// connection terminated by the server (a restart, a failover, a database
// dropped with force) must not become an uncaught exception that ends the
// process; the next read fails with an error instead. Without the listener
// vitest reports the driver's "terminating connection" as an unhandled error.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { TEST_POSTGRES_URL, createPgTestDb, type PgTestDb } from "@/server/db/pg/test-db";
import { openReadConnection } from "./connection";

describe.skipIf(!TEST_POSTGRES_URL)("a read connection the server ends", () => {
  let db: PgTestDb;
  beforeEach(async () => {
    db = await createPgTestDb();
  });
  afterEach(async () => {
    await db.close();
  });

  it("is not an uncaught exception; the next read rejects", async () => {
    const connection = await openReadConnection({ engine: "postgres", url: db.url }, { sqlite: () => { throw new Error("not used"); }, pg: () => pg });
    expect(await connection.readMessage("none")).toBeNull();
    const ended = await db.db.query<{ ended: boolean }>(
      "select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'idle' and query like 'select type, metadata from messages%'",
    );
    expect(ended.map((row) => row.ended)).toEqual([true]);
    // Wait for the state: the backend is gone.
    for (;;) {
      const left = await db.db.query("select 1 from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like 'select type, metadata from messages%'");
      if (left.length === 0) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await expect(connection.readMessage("none")).rejects.toThrow();
    await connection.close().catch(() => {});
  });
});
