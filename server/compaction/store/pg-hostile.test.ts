// Hostile stored bytes on PostgreSQL (issue 25). A UTF8 database cannot hold
// text that is not UTF-8 or a NUL byte; a SQL_ASCII database holds any bytes
// but NUL, and a table without NOT NULL holds NULL. On such a database the
// same rule as on SQLite applies: rows are reduced on their bytes and written
// back byte-exact, NULL is `not_text`, and a refused rewrite is skipped.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { runCleanupPass } from "../cleanup/pass";
import { hostileWorkspaceRows } from "../cleanup/hostile-workspace-test-support";
import { openDifferential } from "../reducer/differential-test-support";
import { FAMILIES } from "../reducer/hostile-rows-test-support";
import { NOW_MS, armPolicyOn, shellMetadata } from "../test-support";
import { createPgBytesDb, insertPgBytes, insertPgTask, pgFuzzDb, storedPgBytes, type PgBytesDb } from "./pg-bytes-test-support";
import { createPgCompactionStore } from "./pg-store";

describe.skipIf(!TEST_POSTGRES_URL)("PostgreSQL compaction on any stored bytes", () => {
  for (const family of FAMILIES) {
    it(`[TPR-RED-10][TPR-RED-14] ${family}: the reducer and the expectation agree on every row and the stored bytes are the expectation's`, async () => {
      const fuzz = openDifferential(await pgFuzzDb(await createPgBytesDb()));
      try {
        const { stats, differences } = await fuzz.run(family, family === "wide" ? 60 : 300, { seed: 27 });
        expect(differences).toEqual([]);
        if (family === "blob") expect(stats.skipped.not_text).toBe(300);
        else expect(stats.changed, JSON.stringify(stats)).toBeGreaterThan(family === "wide" ? 5 : 15);
      } finally {
        await fuzz.close();
      }
    });
  }

  describe("a pass", () => {
    let db: PgBytesDb;
    beforeAll(async () => {
      db = await createPgBytesDb();
    });
    afterAll(() => db?.close());
    // Each pass on its own: a test that fails mid-pass must not leave its operation in the slot for the next one.
    beforeEach(() => db.reset());

    it("[TPR-RED-10][TPR-BAT-05] ends succeeded over hostile rows, compacts the ordinary rows beside them and keeps every byte outside the payloads", async () => {
      const store = createPgCompactionStore(db.db);
      await armPolicyOn(store, { value: 1, unit: "weeks" }, NOW_MS);
      for (const task of ["a", "h", "z"]) await insertPgTask(db.db, task);
      for (const task of ["a", "z"]) {
        for (let i = 0; i < 10; i++) await insertPgBytes(db.db, { id: `${task}-m${i}`, sessionId: `${task}-s1`, type: "tool_execute", bytes: Buffer.from(shellMetadata(`c${i}`, "x".repeat(500))), storage: "text" });
      }
      const rows = Object.entries(hostileWorkspaceRows()).filter(([, row]) => !row.bytes.includes(0));
      for (const [name, row] of rows) await insertPgBytes(db.db, { id: name, sessionId: "h-s1", ...row });
      // A rewrite the server refuses (a trigger raising), beside them.
      await db.db.exec(`create function refuse_a_m3() returns trigger language plpgsql as $$ begin raise exception 'kept by policy'; end $$;
        create trigger refuse_a_m3 before update of metadata on messages for each row when (old.id = 'a-m3') execute function refuse_a_m3()`);

      const result = await runCleanupPass({ store, clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {} });
      expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
      const changedHostile = rows.filter(([, row]) => row.expect.outcome === "changed").length;
      expect(result.operation).toMatchObject({ changedMessages: 19 + changedHostile, skipped: { write_refused: 1, not_text: 1 } });
      for (const [name, row] of rows) {
        const after = await storedPgBytes(db.db, { id: name });
        if (row.expect.outcome === "changed") expect(after.bytes.equals(row.expect.bytes), name).toBe(true);
        else expect(after.bytes.equals(row.storage === "blob" ? Buffer.alloc(0) : row.bytes), name).toBe(true);
      }
    });

    it("[TPR-ELIG-12] a request whose metadata is NULL counts as pending input (fail closed, as SQLite's probe): the task is kept and the pass goes on", async () => {
      const store = createPgCompactionStore(db.db);
      await armPolicyOn(store, { value: 1, unit: "weeks" }, NOW_MS);
      await insertPgTask(db.db, "p");
      await insertPgBytes(db.db, { id: "p-ask", sessionId: "p-s1", type: "permission_request", bytes: Buffer.alloc(0), storage: "blob" });
      const tool = Buffer.from(shellMetadata("p1", "x".repeat(500)));
      await insertPgBytes(db.db, { id: "p-m1", sessionId: "p-s1", type: "tool_execute", bytes: tool, storage: "text" });
      const result = await runCleanupPass({ store, clock: manualClock(NOW_MS + 1), operationId: "run-2", wait: async () => {} });
      expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
      expect(result.operation?.skipped.pending_input).toBe(1);
      expect((await storedPgBytes(db.db, { id: "p-ask" })).type).toBe("null");
      expect((await storedPgBytes(db.db, { id: "p-m1" })).bytes.equals(tool)).toBe(true);
    });

    it("[TPR-TX-02] a row the guard never matches (a trigger drops the update) is counted `conflict` once per pass and the pass moves on", async () => {
      const store = createPgCompactionStore(db.db);
      await armPolicyOn(store, { value: 1, unit: "weeks" }, NOW_MS);
      await insertPgTask(db.db, "c");
      for (let i = 0; i < 6; i++) await insertPgBytes(db.db, { id: `c-m${i}`, sessionId: "c-s1", type: "tool_execute", bytes: Buffer.from(shellMetadata(`c${i}`, "x".repeat(500))), storage: "text" });
      // Returning NULL from a BEFORE trigger skips the row silently: the rewrite reports 0 rows, every time.
      await db.db.exec(`create function ignore_c_m2() returns trigger language plpgsql as $$ begin return null; end $$;
        create trigger ignore_c_m2 before update of metadata on messages for each row when (old.id = 'c-m2') execute function ignore_c_m2()`);
      const before = (await storedPgBytes(db.db, { id: "c-m2" })).bytes;
      for (let pass = 1; pass <= 2; pass++) {
        const result = await runCleanupPass({ store, clock: manualClock(NOW_MS + 10 * pass), operationId: `run-c${pass}`, wait: async () => {} });
        expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
        expect(result.operation?.skipped.conflict).toBe(1);
        expect(result.operation?.changedMessages).toBe(pass === 1 ? 5 : 0);
      }
      expect((await storedPgBytes(db.db, { id: "c-m2" })).bytes.equals(before)).toBe(true);
      for (const i of [0, 1, 3, 4, 5]) expect((await storedPgBytes(db.db, { id: `c-m${i}` })).bytes.includes(Buffer.from('"payload_retention"'))).toBe(true);
    });
  });
});
