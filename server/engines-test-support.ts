// Test support: one store suite, run on every engine. SQLite always runs
// (a fresh temp file per test); PostgreSQL runs when TEST_POSTGRES_URL is
// set (one fresh database per test file, emptied before each test) and is
// skipped otherwise, so `npm test` stays green without a server.
import { afterAll, afterEach, beforeAll, beforeEach, describe } from "vitest";
import type { AuthStore } from "./auth/store";
import { createSqliteAuthStore } from "./auth/sqlite-store";
import { createPgAuthStore } from "./auth/pg-store";
import { createTestDb, type TestDb } from "./db/test-db";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./db/pg/test-db";
import type { PgDb } from "./db/pg/pg-db";
import type { WorkspaceStore } from "./workspace/store";
import { createSqliteWorkspaceStore } from "./workspace/sqlite-store";
import { createPgWorkspaceStore } from "./workspace/pg-store";

export type EngineName = "sqlite" | "postgres";

/** The stores of the current test's database, plus raw reads for assertions. */
export type EngineDb = {
  engine: EngineName;
  auth(): AuthStore;
  workspace(): WorkspaceStore;
  /** Rows of a read-only SQL statement written for both engines (`?` placeholders become $n on PostgreSQL). */
  rows<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** PostgreSQL only: the database and its URL, for suites that open their own clients; `db` is the pool the checkpoint saver shares. */
  pg?: { db: PgDb; url: string };
};

function sqliteDb(db: TestDb): EngineDb {
  return {
    engine: "sqlite",
    auth: () => createSqliteAuthStore(db.db),
    workspace: () => createSqliteWorkspaceStore(db.db),
    rows: async <T>(sql: string, params: readonly unknown[] = []) => db.sqlite.prepare(sql).all(...params) as T[],
  };
}

function pgDb(db: PgTestDb): EngineDb {
  return {
    engine: "postgres",
    auth: () => createPgAuthStore(db.db),
    workspace: () => createPgWorkspaceStore(db.db),
    pg: { db: db.db, url: db.url },
    rows: <T>(sql: string, params: readonly unknown[] = []) => {
      let n = 0;
      return db.db.query<T>(sql.replace(/\?/g, () => `$${++n}`), params);
    },
  };
}

/**
 * Declares `body` once per engine (titles end in [sqlite] / [postgres]).
 * `db()` is the current test's fresh database; `open()` a second, separate
 * one (e.g. the target of export -> import), closed after the test.
 */
export function describeEachEngine(title: string, body: (ctx: { engine: EngineName; db: () => EngineDb; open: () => Promise<EngineDb> }) => void): void {
  describe(`${title} [sqlite]`, () => {
    let current: TestDb | undefined;
    const extra: TestDb[] = [];
    beforeEach(() => {
      current = createTestDb();
    });
    afterEach(() => {
      current?.close();
      extra.splice(0).forEach((db) => db.close());
    });
    body({
      engine: "sqlite",
      db: () => sqliteDb(current!),
      open: async () => {
        const db = createTestDb();
        extra.push(db);
        return sqliteDb(db);
      },
    });
  });

  describe.skipIf(!TEST_POSTGRES_URL)(`${title} [postgres]`, () => {
    let main: PgTestDb | undefined;
    let second: PgTestDb | undefined;
    beforeAll(async () => {
      main = await createPgTestDb();
    });
    beforeEach(() => main!.reset());
    afterAll(async () => {
      await main?.close();
      await second?.close();
    });
    body({
      engine: "postgres",
      db: () => pgDb(main!),
      open: async () => {
        second ??= await createPgTestDb();
        await second.reset();
        return pgDb(second);
      },
    });
  });
}
