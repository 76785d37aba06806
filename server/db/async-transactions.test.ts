// The asynchronous transaction mechanics on both engines: writer
// transactions of one process never interleave, a concurrent read never sees
// an open transaction's uncommitted rows, nested calls join the open
// transaction as savepoints, and statements outside it stay outside it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { readPgConfig } from "./pg/config";
import { SQLSTATE } from "./pg/errors";
import { createPgDb, type PgDb } from "./pg/pg-db";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./pg/test-db";
import { WRITER_LOCK_KEYS, writerTransaction } from "./pg/writer-lock";
import { createTestDb, type TestDb } from "./test-db";
import { wrapSqliteDb, type SqliteDb } from "./sqlite-db";

/** The same few operations on either engine, on the settings table. */
type Engine = {
  /** A writer transaction (PostgreSQL: with a domain writer lock, as the stores take it). */
  writeTransaction<T>(fn: () => Promise<T>): Promise<T>;
  /** A transaction of this database (nested inside an open one: a savepoint). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  insert(key: string): Promise<void>;
  keys(): Promise<string[]>;
  inTransaction(): boolean;
};

function sqliteEngine(db: SqliteDb): Engine {
  return {
    writeTransaction: (fn) => db.transaction(fn),
    transaction: (fn) => db.transaction(fn),
    insert: (key) => db.write((w) => void w.prepare(`insert into settings (key, value, updated_at_ms) values (?, '{}', 0)`).run(key)),
    keys: async () => (db.reading().prepare(`select key from settings order by key`).all() as Array<{ key: string }>).map((r) => r.key),
    inTransaction: () => db.inTransaction(),
  };
}

function pgEngine(db: PgDb): Engine {
  return {
    writeTransaction: (fn) => writerTransaction(db, "workspace", fn),
    transaction: (fn) => db.transaction(fn),
    insert: async (key) => void (await db.run(`insert into settings (key, value, updated_at_ms) values ($1, '{}', 0)`, [key])),
    keys: async () => (await db.query<{ key: string }>(`select key from settings order by key`)).map((r) => r.key),
    inTransaction: () => db.inTransaction(),
  };
}

/** A promise the test resolves when it chooses (an await that keeps a transaction open). */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function suite(name: string, setup: { engine: () => Engine }) {
  describe(name, () => {
    it("two writer transactions never interleave: the second starts after the first commits and sees its rows", async () => {
      const e = setup.engine();
      const log: string[] = [];
      const held = gate();
      const entered = gate();
      const a = e.writeTransaction(async () => {
        await e.insert("a1");
        log.push("a1");
        entered.open();
        await held.promise;
        await e.insert("a2");
        log.push("a2");
      });
      await entered.promise;
      const b = e.writeTransaction(async () => {
        log.push(`b sees ${(await e.keys()).join(",")}`);
        await e.insert("b1");
        log.push("b1");
      });
      // Give the second transaction every chance to run early.
      for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(log).toEqual(["a1"]);
      held.open();
      await Promise.all([a, b]);
      expect(log).toEqual(["a1", "a2", "b sees a1,a2", "b1"]);
      expect(await e.keys()).toEqual(["a1", "a2", "b1"]);
    });

    it("a concurrent read never sees an open transaction's uncommitted rows; the transaction sees its own", async () => {
      const e = setup.engine();
      const held = gate();
      const written = gate();
      let inside: string[] = [];
      const a = e.writeTransaction(async () => {
        await e.insert("mine");
        inside = await e.keys();
        written.open();
        await held.promise;
      });
      await written.promise;
      expect(inside).toEqual(["mine"]);
      expect(e.inTransaction()).toBe(false);
      expect(await e.keys()).toEqual([]);
      held.open();
      await a;
      expect(await e.keys()).toEqual(["mine"]);
    });

    it("a rejected transaction rolls back everything it wrote, and the next one runs", async () => {
      const e = setup.engine();
      await expect(
        e.writeTransaction(async () => {
          await e.insert("lost");
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      await e.writeTransaction(() => e.insert("kept"));
      expect(await e.keys()).toEqual(["kept"]);
    });

    it("nested calls join the open transaction as savepoints: an inner failure rolls back the inner part only", async () => {
      const e = setup.engine();
      await e.writeTransaction(async () => {
        await e.insert("outer");
        await expect(
          e.transaction(async () => {
            expect(e.inTransaction()).toBe(true);
            await e.insert("inner-lost");
            throw new Error("inner");
          }),
        ).rejects.toThrow("inner");
        await e.transaction(() => e.insert("inner-kept"));
        expect(await e.keys()).toEqual(["inner-kept", "outer"]);
      });
      expect(await e.keys()).toEqual(["inner-kept", "outer"]);
      await expect(
        e.writeTransaction(async () => {
          await e.transaction(() => e.insert("joined"));
          throw new Error("outer");
        }),
      ).rejects.toThrow("outer");
      expect(await e.keys()).toEqual(["inner-kept", "outer"]);
    });

    it("a write outside the open transaction is not part of it: it survives the transaction's rollback", async () => {
      const e = setup.engine();
      const held = gate();
      const entered = gate();
      const a = e.writeTransaction(async () => {
        await e.insert("a");
        entered.open();
        await held.promise;
        throw new Error("rolled back");
      });
      await entered.promise;
      const outside = e.insert("outside");
      held.open();
      await expect(a).rejects.toThrow("rolled back");
      await outside;
      expect(await e.keys()).toEqual(["outside"]);
    });

    it("async work a transaction leaves running after it ends runs outside it", async () => {
      const e = setup.engine();
      const later = gate();
      let leaked: Promise<void> | undefined;
      await e.writeTransaction(async () => {
        await e.insert("tx");
        leaked = (async () => {
          await later.promise;
          expect(e.inTransaction()).toBe(false);
          await e.insert("leaked");
        })();
      });
      later.open();
      await leaked;
      expect(await e.keys()).toEqual(["leaked", "tx"]);
    });
  });
}

describe("SQLite", () => {
  let t: TestDb;
  let db: SqliteDb;
  beforeEach(() => {
    t = createTestDb();
    db = wrapSqliteDb(t);
  });
  afterEach(() => {
    db.closeNow();
    t.close();
  });
  suite("async transactions [sqlite]", { engine: () => sqliteEngine(db) });

  it("reads outside a transaction go to a query-only connection; inside, to the writer", async () => {
    expect(db.reading()).not.toBe(db.writer);
    expect(() => db.reading().prepare(`insert into settings (key, value, updated_at_ms) values ('x', '{}', 0)`).run()).toThrow(/readonly|query_only|attempt to write/i);
    await db.transaction(async () => {
      expect(db.reading()).toBe(db.writer);
    });
  });

  it("close waits for the transaction in progress", async () => {
    const held = gate();
    const a = db.transaction(async () => {
      await held.promise;
      db.writer.prepare(`insert into settings (key, value, updated_at_ms) values ('last', '{}', 0)`).run();
    });
    const closed = db.close();
    held.open();
    await Promise.all([a, closed]);
    expect(db.open).toBe(false);
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("PostgreSQL", () => {
  let t: PgTestDb;
  let db: PgDb;
  beforeAll(async () => {
    t = await createPgTestDb();
    db = createPgDb(readPgConfig(t.url, { PG_POOL_MAX: "4" }));
  });
  beforeEach(() => t.reset());
  afterAll(async () => {
    await db.close();
    await t.close();
  });
  suite("async transactions [postgres]", { engine: () => pgEngine(db) });

  it("statements outside a transaction run on other sessions: one waiting on a lock holds up nobody", async () => {
    await db.run(`insert into settings (key, value, updated_at_ms) values ('row', '{}', 0)`);
    const held = gate();
    const locked = gate();
    const holder = db.transaction(async () => {
      await db.query(`select key from settings where key = 'row' for update`);
      locked.open();
      await held.promise;
    });
    await locked.promise;
    let blockedDone = false;
    const blocked = db.run(`update settings set value = '[]' where key = 'row'`).then(() => {
      blockedDone = true;
    });
    expect(await db.one(`select 1 as one`)).toEqual({ one: 1 });
    expect(await db.query(`select key from settings`)).toEqual([{ key: "row" }]);
    expect(blockedDone).toBe(false);
    held.open();
    await Promise.all([holder, blocked]);
    expect(await db.one(`select value from settings where key = 'row'`)).toEqual({ value: "[]" });
  });

  it("a writer transaction nested in another domain's takes its own domain's lock: the other instance's writer of that domain waits for the outer commit", async () => {
    const other = createPgDb(readPgConfig(t.url, { PG_POOL_MAX: "2" }));
    try {
      const log: string[] = [];
      const held = gate();
      const entered = gate();
      const outer = writerTransaction(db, "auth", async () => {
        await writerTransaction(db, "compaction", async () => {
          await db.run(`insert into settings (key, value, updated_at_ms) values ('nested', '{}', 0)`);
        });
        entered.open();
        await held.promise;
        log.push("outer commits");
      });
      await entered.promise;
      const second = writerTransaction(other, "compaction", async () => {
        log.push("other instance's compaction writer");
        return (await other.query<{ key: string }>(`select key from settings`)).map((r) => r.key);
      });
      // Its session waits on the compaction lock the savepoint took (a granted lock there would let it run now).
      await vi.waitFor(
        async () =>
          expect(await db.one(`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and objid::text::bigint = $1`, [WRITER_LOCK_KEYS.compaction])).toEqual({ n: 1 }),
        { timeout: 10_000, interval: 20 },
      );
      expect(log).toEqual([]);
      held.open();
      expect(await second).toEqual(["nested"]);
      await outer;
      expect(log).toEqual(["outer commits", "other instance's compaction writer"]);
    } finally {
      await other.close();
    }
  });

  it("a transaction's own timeouts apply to it only, and server errors keep their SQLSTATE", async () => {
    await expect(db.transaction(() => db.one(`select pg_sleep(1)`), { statementTimeoutMs: 20 })).rejects.toMatchObject({ name: "PgError", code: SQLSTATE.queryCanceled });
    expect(await db.one(`select current_setting('statement_timeout') as v`)).toEqual({ v: "30s" });
    expect(await db.run(`insert into settings (key, value, updated_at_ms) values ('k', '{}', 0), ('l', '{}', 0)`)).toBe(2);
    await expect(db.run(`insert into settings (key, value, updated_at_ms) values ('k', '{}', 0)`)).rejects.toMatchObject({ name: "PgError", code: SQLSTATE.uniqueViolation });

    // A row another session holds: this transaction's lock_timeout ends its wait, and the next session has the configured one.
    const other = await db.session("row holder");
    try {
      await other.exec(`begin; select * from settings where key = 'k' for update`);
      await expect(db.transaction(() => db.run(`update settings set value = '[]' where key = 'k'`), { lockTimeoutMs: 20 })).rejects.toMatchObject({ name: "PgError", code: SQLSTATE.lockNotAvailable });
      await other.exec(`rollback`);
    } finally {
      await other.close();
    }
    expect(await db.one(`select current_setting('lock_timeout') as v`)).toEqual({ v: "5s" });
  });

  it("returns integers as numbers and json and text exactly as stored", async () => {
    const row = await db.one(`select 1700000000000::bigint as ms, $1::json as j, true as b, null::text as n`, ['{"b":1, "a":1.50}']);
    expect(row).toEqual({ ms: 1700000000000, j: '{"b":1, "a":1.50}', b: true, n: null });
  });
});
