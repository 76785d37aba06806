import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "./db/pg/test-db";
import { openPgStores } from "./stores";

describe.skipIf(!TEST_POSTGRES_URL)("openPgStores", () => {
  let db: PgTestDb;
  beforeAll(async () => {
    db = await createPgTestDb();
  });
  afterAll(async () => db?.close());

  it("serves the auth and workspace stores on one connection, sharing its transaction", async () => {
    const stores = openPgStores(db.db);
    await expect(stores.workspace.writeTransaction(async (tx) => {
        await tx.insertTask({ id: "t1", title: "x", state: "OPEN", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", queuedForStep: false });
        await stores.auth.insertUser({ id: "u1", email: "a@example.com", role: "admin", passwordHash: "h", createdAt: "2026-01-01T00:00:00Z" });
        throw new Error("abort");
      })).rejects.toThrow("abort");
    expect(await stores.auth.countUsers()).toBe(0);
    expect(await stores.workspace.recordExists("task", "t1")).toBe(false);
  });
});
