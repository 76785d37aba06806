import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPg, PgError, SQLSTATE } from "./client";
import { migratePg } from "./migrate";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./test-db";
import { withDatabase } from "./url";

describe("withDatabase", () => {
  it("swaps the database of socket and host URLs, keeping the query", () => {
    expect(withDatabase("postgresql://postgres@/postgres?host=/tmp/x", "t_1")).toBe("postgresql://postgres@/t_1?host=/tmp/x");
    expect(withDatabase("postgres://u:p@db:5432", "t_1")).toBe("postgres://u:p@db:5432/t_1");
    expect(() => withDatabase("postgres://db/x", "x; drop")).toThrow();
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("synchronous PostgreSQL client", () => {
  let db: PgTestDb;
  beforeAll(async () => {
    db = await createPgTestDb();
  });
  afterAll(() => db?.close());

  it("returns integers as numbers and json/text exactly as stored", () => {
    const row = db.client.one(`select 1700000000000::bigint as ms, $1::json as j, true as b, null::text as n`, ['{"b":1, "a":1.50}']);
    expect(row).toEqual({ ms: 1700000000000, j: '{"b":1, "a":1.50}', b: true, n: null });
  });

  it("commits a synchronous transaction, rolls back a throwing one and a failed savepoint only", async () => {
    await db.reset();
    const insert = (id: string) => db.client.run(`insert into settings (key, value, updated_at_ms) values ($1, '{}', 0)`, [id]);
    db.client.transaction((tx) => {
      insert("a");
      expect(() =>
        tx.transaction(() => {
          insert("b");
          throw new Error("inner");
        }),
      ).toThrow("inner");
    });
    expect(() =>
      db.client.transaction(() => {
        insert("c");
        throw new Error("outer");
      }),
    ).toThrow("outer");
    expect(db.client.query(`select key from settings order by key`)).toEqual([{ key: "a" }]);
    expect(db.client.inTransaction).toBe(false);
  });

  it("refuses an async transaction callback and rolls it back", async () => {
    await db.reset();
    expect(() =>
      db.client.transaction(async () => {
        db.client.run(`insert into settings (key, value, updated_at_ms) values ('x', '{}', 0)`);
      }),
    ).toThrow(/synchronous/);
    expect(db.client.query(`select key from settings`)).toEqual([]);
  });

  it("reports SQLSTATE codes and affected row counts", async () => {
    await db.reset();
    expect(db.client.run(`insert into settings (key, value, updated_at_ms) values ('k', '{}', 0), ('l', '{}', 0)`)).toBe(2);
    let caught: unknown;
    try {
      db.client.run(`insert into settings (key, value, updated_at_ms) values ('k', '{}', 0)`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PgError);
    expect((caught as PgError).code).toBe(SQLSTATE.uniqueViolation);
  });

  it("applies a transaction's statement_timeout and lock_timeout to it only", async () => {
    let caught: unknown;
    try {
      db.client.transaction(() => db.client.one(`select pg_sleep(1)`), { statementTimeoutMs: 20 });
    } catch (error) {
      caught = error;
    }
    expect((caught as PgError).code).toBe(SQLSTATE.queryCanceled);
    expect(db.client.one(`select current_setting('statement_timeout') as v`)).toEqual({ v: "30s" });

    await db.reset();
    db.client.run(`insert into settings (key, value, updated_at_ms) values ('row', '{}', 0)`);
    const other = connectPg({ url: db.url });
    try {
      other.exec(`begin; select * from settings where key = 'row' for update`);
      let lockError: unknown;
      try {
        db.client.transaction(() => db.client.run(`update settings set value = '[]' where key = 'row'`), { lockTimeoutMs: 20 });
      } catch (error) {
        lockError = error;
      }
      expect((lockError as PgError).code).toBe(SQLSTATE.lockNotAvailable);
      other.exec(`rollback`);
    } finally {
      other.close();
    }
  });

  it("migrates once: a second run applies nothing", () => {
    expect(migratePg(db.client)).toEqual([]);
    const tables = db.client.query<{ t: string }>(`select table_name as t from information_schema.tables where table_schema = 'public' order by 1`);
    expect(tables.map((r) => r.t)).toEqual(
      ["audit_events", "auth_sessions", "checkpoint_epochs", "checkpoint_runs", "expired_threads", "login_throttle", "maintenance_policies", "messages", "payload_restores", "queued_messages", "runs", "settings", "storage_samples", "task_holds", "task_sessions", "tasks", "turns", "users"],
    );
    const metadata = db.client.one(`select data_type from information_schema.columns where table_name = 'messages' and column_name = 'metadata'`);
    expect(metadata).toEqual({ data_type: "text" });
  });
});
