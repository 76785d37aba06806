import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import { readPgConfig } from "@/server/db/pg/config";
import { createPgDb, type PgDb } from "@/server/db/pg/pg-db";
import { createEmptyPgDatabase, TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { engineFingerprint, fingerprint, sampleFixture, TRICKY_METADATA } from "@/server/workspace/fixture/test-support";

let t: TestDb | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  t?.close();
  t = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const WORKSPACE_TABLES = ["tasks", "task_sessions", "turns", "messages", "queued_messages", "runs"];

/** engineFingerprint over PostgreSQL's rows (read first, then hashed the same way). */
async function pgFingerprint(db: PgDb) {
  const rows = new Map<string, unknown[]>();
  for (const table of WORKSPACE_TABLES) {
    const sql = `select * from ${table} order by 1`;
    rows.set(sql, await db.query(sql));
  }
  return engineFingerprint({ all: (sql) => rows.get(sql)! });
}

function runImport(db: TestDb | { dir: string; url: string }, name: string, text: string) {
  const file = path.join(db.dir, name);
  fs.writeFileSync(file, text);
  // Exactly what `npm run db:import -- FILE` runs (server-only needs the react-server condition).
  const result = spawnSync(path.resolve("node_modules/.bin/tsx"), ["--conditions=react-server", "scripts/db-import.ts", "--", file], {
    env: { ...process.env, DATABASE_URL: "url" in db ? db.url : `file:${db.file}` },
    encoding: "utf8",
  });
  return { ...result, file };
}

describe("npm run db:import", () => {
  it("imports a fixture and then refuses a bad one with one readable line, leaving the database unchanged", () => {
    t = createTestDb();
    t.sqlite.close(); // the CLI opens its own connection
    const ok = runImport(t, "ok.json", sampleFixture());
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/Imported .*ok\.json: 2 tasks, 2 sessions, 2 turns, 2 messages, 1 queued messages, 2 runs/);

    const check = openDatabase({ file: t.file });
    const before = fingerprint(check.sqlite);
    check.sqlite.close();

    const bad = runImport(t, "bad.json", sampleFixture({ prefix: "n-" }).replace('"turnId": "n-u1", "authorType": "agent"', '"turnId": "ghost", "authorType": "agent"'));
    expect(bad.status).toBe(1);
    const lines = bad.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `db:import: ${bad.file}: tasks[0].sessions[0].messages[1].turnId: unknown turn "ghost" (not a turn of session "n-s1")`,
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);

    const after = openDatabase({ file: t.file });
    expect(fingerprint(after.sqlite)).toEqual(before);
    after.sqlite.close();
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("npm run db:import on PostgreSQL", () => {
  it("imports into a fresh database (migrating it), byte-exact; a bad file and a clash halfway change nothing", async () => {
    const database = await createEmptyPgDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-import-pg-"));
    cleanups.push(async () => {
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const db = createPgDb(readPgConfig(database.url, { PG_POOL_MAX: "1" }));
    cleanups.push(() => db.close());
    const target = { dir, url: database.url };

    const ok = runImport(target, "ok.json", sampleFixture());
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/Imported .*ok\.json: 2 tasks, 2 sessions, 2 turns, 2 messages, 1 queued messages, 2 runs/);
    // The metadata's text is the file's, byte for byte (number literals, key order, escapes).
    expect(await db.query(`select id, metadata from messages order by id`)).toEqual([
      { id: "m1", metadata: "{}" },
      { id: "m2", metadata: TRICKY_METADATA },
    ]);
    const before = await pgFingerprint(db);
    expect(before.counts).toEqual({ tasks: 2, task_sessions: 2, turns: 2, messages: 2, queued_messages: 1, runs: 2 });

    const bad = runImport(target, "bad.json", sampleFixture({ prefix: "n-" }).replace('"turnId": "n-u1", "authorType": "agent"', '"turnId": "ghost", "authorType": "agent"'));
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split("\n")).toEqual([
      `db:import: ${bad.file}: tasks[0].sessions[0].messages[1].turnId: unknown turn "ghost" (not a turn of session "n-s1")`,
    ]);
    expect(await pgFingerprint(db)).toEqual(before);

    // Valid on its own, but its second task's id is taken: the first task's rows were written in the
    // transaction before the clash, and none of them stays.
    const clash = runImport(target, "clash.json", sampleFixture({ prefix: "c-" }).replace('"id": "c-t2"', '"id": "t2"'));
    expect(clash.status).toBe(1);
    expect(clash.stderr.trim().split("\n")).toEqual([`db:import: ${clash.file}: tasks[1].id: task id "t2" already exists in the database`]);
    expect(await pgFingerprint(db)).toEqual(before);
  });
});
