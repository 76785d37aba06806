import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./db/pg/test-db";
import { openPgStores } from "./stores";

describe.skipIf(!TEST_POSTGRES_URL)("openPgStores", () => {
  let db: PgTestDb;
  beforeAll(() => {
    db = createPgTestDb();
  });
  afterAll(() => db?.close());

  it("serves the auth and workspace stores on one connection, sharing its transaction", () => {
    const stores = openPgStores(db.client);
    expect(() =>
      stores.workspace.writeTransaction((tx) => {
        tx.insertTask({ id: "t1", title: "x", state: "OPEN", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", queuedForStep: false });
        stores.auth.insertUser({ id: "u1", email: "a@example.com", role: "admin", passwordHash: "h", createdAt: "2026-01-01T00:00:00Z" });
        throw new Error("abort");
      }),
    ).toThrow("abort");
    expect(stores.auth.countUsers()).toBe(0);
    expect(stores.workspace.recordExists("task", "t1")).toBe(false);
  });
});
