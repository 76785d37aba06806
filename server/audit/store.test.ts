// The audit store on both engines: append, newest-first pages with the
// actor's email, kind filter, pruning, and rollback with the transaction.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "@/server/db/pg/test-db";
import { createSqliteAuthStore } from "@/server/auth/sqlite-store";
import { createPgAuthStore } from "@/server/auth/pg-store";
import type { AuthStore } from "@/server/auth/store";
import { createSqliteAuditStore } from "./sqlite-store";
import { createPgAuditStore } from "./pg-store";
import type { AuditStore } from "./store";

type Engine = { audit: AuditStore; auth: AuthStore };

function suite(open: () => Engine) {
  const entry = (atMs: number, kind: string, actor = "cli") => ({ atMs, actor, kind, result: "ok" as const, errorCode: null, detail: "{}" });

  it("lists newest first with a cursor and a kind filter, naming the actor's email", async () => {
    const { audit, auth } = open();
    await auth.insertUser({ id: "u1", email: "a@example.com", role: "admin", passwordHash: "x", createdAt: "2026-01-01T00:00:00Z" });
    await audit.insert(entry(1, "backup.created", "u1"));
    await audit.insert(entry(2, "database.vacuumed"));
    await audit.insert(entry(3, "backup.created"));
    const all = await audit.list({ beforeSeq: null, kind: null, limit: 10 });
    expect(all.map((r) => [Number(r.seq), Number(r.atMs), r.kind])).toEqual([
      [3, 3, "backup.created"],
      [2, 2, "database.vacuumed"],
      [1, 1, "backup.created"],
    ]);
    expect(all[2]).toMatchObject({ actor: "u1", actorEmail: "a@example.com", result: "ok", errorCode: null, detail: "{}" });
    expect(all[0]!.actorEmail).toBeNull();
    expect((await audit.list({ beforeSeq: 3, kind: "backup.created", limit: 10 })).map((r) => Number(r.seq))).toEqual([1]);
    expect(await audit.prune({ beforeMs: 3 })).toBe(2);
  });

  it("an entry written in a transaction that rolls back is gone", async () => {
    const { audit } = open();
    await expect(
      audit.writeTransaction(async (tx) => {
        await tx.insert(entry(1, "backup.created"));
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await audit.list({ beforeSeq: null, kind: null, limit: 10 })).toEqual([]);
  });
}

describe("audit store [sqlite]", () => {
  let db: TestDb;
  beforeEach(async () => {
    db = createTestDb();
    return () => db.close();
  });
  suite(() => ({ audit: createSqliteAuditStore(db.db), auth: createSqliteAuthStore(db.db) }));
});

describe.skipIf(!TEST_POSTGRES_URL)("audit store [postgres]", () => {
  let db: PgTestDb;
  beforeAll(async () => {
    db = await createPgTestDb();
  });
  beforeEach(async () => db.reset());
  afterAll(async () => db?.close());
  suite(() => ({ audit: createPgAuditStore(db.db), auth: createPgAuthStore(db.db) }));
});
