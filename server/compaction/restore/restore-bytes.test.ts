// Per-task restore on any stored bytes (issue 29, and GUIDE.md's rule for
// code that rewrites stored bytes): generated hostile rows (text that is not
// UTF-8, BLOBs, keys with escaped NULs, bytes after the document, deep and
// wide documents) are backed up, compacted by a real pass, some of them
// edited afterwards, and restored. Two paths read the backup (SQLite's
// read-only connection to the file, PostgreSQL's pg_restore COPY stream of
// the archive); the independent expectation is the bytes as first written:
// every compacted row that was not edited gets exactly those bytes back,
// every edited row keeps its edit, and every other row is left as stored.
// A backup row of the wrong type (a BLOB, an integer, NULL) or of another
// message type is not_in_backup and never written.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { readPgConfig } from "@/server/db/pg/config";
import { createPgDb, type PgDb } from "@/server/db/pg/pg-db";
import { TEST_POSTGRES_URL } from "@/server/db/pg/test-db";
import { runPgTool } from "@/server/maintenance/pg-tools";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { createLogger } from "@/server/log";
import { runCleanupPass } from "../cleanup/pass";
import { REMOVED_AT } from "../cleanup/hostile-workspace-test-support";
import { FAMILIES, hostileRows, type HostileRow } from "../reducer/hostile-rows-test-support";
import type { CompactionStore } from "../store";
import { createPgBytesDb, insertPgBytes, insertPgTask, storedPgBytes, type PgBytesDb } from "../store/pg-bytes-test-support";
import { createPgCompactionStore } from "../store/pg-store";
import { NOW_MS, armPolicy, armPolicyOn, insertSession, insertTask, insertTurn, storeOf } from "../test-support";
import type { BackupReader } from "./backup-reader";
import { openPgArchiveReader } from "./pg-archive-reader";
import { createPgRestoreStore } from "./pg-store";
import { planTask } from "./plan";
import { runRestore, type RestoreCounts } from "./run-restore";
import { openSqliteBackupReader } from "./sqlite-backup-reader";
import { createSqliteRestoreStore } from "./sqlite-store";
import type { RestoreStore } from "./store";

const ROWS = 48;

type Stored = { type: string; bytes: Buffer };

/** One engine's database as the test drives it. */
type Engine = {
  compaction: CompactionStore;
  restores: RestoreStore;
  insert(id: string, row: { type: string; bytes: Buffer; storage: "text" | "blob" }): void | Promise<void>;
  stored(id: string): Stored | Promise<Stored>;
  /** Sets a row's metadata to a value that is not text (SQLite: a BLOB; PostgreSQL: NULL). */
  wrongType(id: string): void | Promise<void>;
  setBytes(id: string, bytes: Buffer): void | Promise<void>;
  setType(id: string, type: string): void | Promise<void>;
  touch(id: string): void | Promise<void>;
  /** Publishes a backup of the database now and opens a reader of it. */
  backup(): Promise<BackupReader>;
};

function rowsOf(family: (typeof FAMILIES)[number]): HostileRow[] {
  const next = hostileRows(family, 2900 + FAMILIES.indexOf(family), REMOVED_AT);
  return Array.from({ length: family === "wide" ? 12 : ROWS }, next);
}

/** The scenario, the same on both engines; returns what a caller checks across them. */
async function scenario(engine: Engine, rows: HostileRow[]): Promise<{ counts: RestoreCounts }> {
  const storedAll = async () => {
    const all: Stored[] = [];
    for (let i = 0; i < rows.length; i += 1) all.push(await engine.stored(`h-${i}`));
    return all;
  };
  for (const [i, row] of rows.entries()) await engine.insert(`h-${i}`, row);
  const original = await storedAll();
  // Wrong values in the backup only (put back before the pass): a value that
  // is not text and a row of another type are not_in_backup; text that does
  // not reduce to what is stored now (a number) is changed_since_compaction.
  const wrong = [0, 1, 2].map((k) => rows.findIndex((row, i) => i % 3 === k && row.expect.outcome === "changed" && i > 2)).filter((i) => i >= 0);
  const wrongAs: Array<keyof RestoreCounts> = [];
  for (const [k, i] of wrong.entries()) {
    if (k === 0) await engine.wrongType(`h-${i}`);
    else if (k === 1) await engine.setBytes(`h-${i}`, Buffer.from("42"));
    else await engine.setType(`h-${i}`, "tool_read_other");
    wrongAs.push(k === 1 ? "changed_since_compaction" : "not_in_backup");
  }
  const reader = await engine.backup();
  for (const i of wrong) {
    await engine.setBytes(`h-${i}`, original[i]!.bytes);
    await engine.setType(`h-${i}`, rows[i]!.type);
  }

  const pass = await runCleanupPass({ store: engine.compaction, clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {} });
  expect(pass.state).toBe("succeeded");
  const afterPass = await storedAll();
  const compacted = rows.map((row, i) => row.expect.outcome === "changed" && !afterPass[i]!.bytes.equals(original[i]!.bytes));
  expect(compacted.filter(Boolean).length).toBe(rows.filter((row) => row.expect.outcome === "changed").length);

  // Edited after compaction: a byte after the document, or only a new updated_at.
  const edited = new Map<number, Stored | "touched">();
  for (const [i, was] of compacted.entries()) {
    if (!was || wrong.includes(i)) continue;
    if (i % 7 === 3) {
      await engine.setBytes(`h-${i}`, Buffer.concat([(await engine.stored(`h-${i}`)).bytes, Buffer.from(" ")]));
      edited.set(i, await engine.stored(`h-${i}`));
    } else if (i % 7 === 5) {
      await engine.touch(`h-${i}`);
      edited.set(i, "touched");
    }
  }
  const beforeRestore = await storedAll();

  const plan = await planTask(engine.restores, "h");
  const dry = await runRestore({ store: engine.restores, reader, plan });
  // Nothing written by the dry run.
  (await storedAll()).forEach((now, i) => expect(now.bytes.equals(beforeRestore[i]!.bytes)).toBe(true));
  let commits = 0;
  const done = await runRestore({
    store: engine.restores,
    reader,
    plan,
    batch: { rows: 5, bytes: 64 * 1024 },
    write: { progress: async () => {}, committed: () => void (commits += 1), shouldStop: () => false },
  });
  await reader.close();
  expect(done.tally.counts).toEqual(dry.tally.counts);
  // Bounded batches: one commit per batch of at most five backup rows.
  expect(commits).toBe(Math.ceil(compacted.filter(Boolean).length / 5));

  const restorable = compacted.filter((was, i) => was && !edited.has(i) && !wrong.includes(i)).length;
  expect(done.tally.counts).toEqual({
    restorable,
    changed_since_compaction: edited.size + wrongAs.filter((as) => as === "changed_since_compaction").length,
    not_in_backup: wrongAs.filter((as) => as === "not_in_backup").length,
    not_compacted: compacted.filter((was) => !was).length,
  });
  (await storedAll()).forEach((now, i) => {
    const name = `h-${i} (${rows[i]!.family})`;
    if (compacted[i] && !edited.has(i) && !wrong.includes(i)) expect(now.bytes.equals(original[i]!.bytes), `${name} restored`).toBe(true);
    else expect(now.bytes.equals(beforeRestore[i]!.bytes), `${name} left as stored`).toBe(true);
    expect(now.type, name).toBe(original[i]!.type);
  });
  // A second run finds nothing left to restore and changes nothing.
  const again = await runRestore({ store: engine.restores, reader: await engine.backup(), plan: await planTask(engine.restores, "h") });
  expect(again.tally.counts.restorable).toBe(0);
  return { counts: done.tally.counts };
}

describe("per-task restore on hostile stored bytes [sqlite]", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = createTestDb("restore-bytes-");
    await armPolicy(t.sqlite);
    insertTask(t.sqlite, { id: "h" });
    insertSession(t.sqlite, { id: "h-s1", taskId: "h" });
    insertTurn(t.sqlite, { id: "h-u1", sessionId: "h-s1" });
  });
  afterEach(() => t.close());

  const engine = (): Engine => {
    const run = (sql: string, ...params: unknown[]): void => void t.sqlite.prepare(sql).run(...params);
    let backups = 0;
    return {
      compaction: storeOf(t.sqlite),
      restores: createSqliteRestoreStore(t.db),
      insert: (id, row) =>
        run(
          `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
           values (?, 'h-s1', 'h-u1', 'agent', ?, 'tool', ${row.storage === "blob" ? "?" : "cast(? as text)"}, ?, '2025-01-01T00:00:00Z', ?, '2025-01-01T00:00:00Z', ?)`,
          id,
          row.type,
          row.bytes,
          `call-${id}`,
          Date.parse("2025-01-01T00:00:00Z"),
          Date.parse("2025-01-01T00:00:00Z"),
        ),
      stored: (id) => t.sqlite.prepare("select typeof(metadata) as type, cast(metadata as blob) as bytes from messages where id = ?").get(id) as Stored,
      wrongType: (id) => run("update messages set metadata = cast(metadata as blob) where id = ?", id),
      setBytes: (id, bytes) => run("update messages set metadata = cast(? as text) where id = ?", bytes, id),
      setType: (id, type) => run("update messages set type = ? where id = ?", type, id),
      touch: (id) => run("update messages set updated_at = '2025-09-09T09:09:09Z' where id = ?", id),
      backup: async () => {
        const file = path.join(t.dir, `backup-${(backups += 1)}.db`);
        t.sqlite.prepare("vacuum into ?").run(file);
        return openSqliteBackupReader({ file });
      },
    };
  };

  for (const family of FAMILIES) {
    it(`${family}: restored rows get their first bytes back, edited rows keep their edit, the rest stay as stored`, async () => {
      await scenario(engine(), rowsOf(family));
    });
  }
});

describe.skipIf(!TEST_POSTGRES_URL)("per-task restore on hostile stored bytes [postgres, SQL_ASCII]", () => {
  let db: PgBytesDb;
  let pool: PgDb;
  let dir: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "restore-bytes-pg-"));
    db = await createPgBytesDb();
    pool = createPgDb(readPgConfig(db.url, { PG_POOL_MAX: "2" }));
    await insertPgTask(db.db, "h");
  });
  afterEach(async () => {
    await pool.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const engine = async (): Promise<Engine> => {
    const compaction = createPgCompactionStore(db.db);
    await armPolicyOn(compaction, { value: 1, unit: "weeks" }, NOW_MS);
    let backups = 0;
    return {
      compaction,
      restores: createPgRestoreStore(pool),
      // The turn h-u1 exists; the session is h-s1 (insertPgTask).
      insert: (id, row) => insertPgBytes(db.db, { id, sessionId: "h-s1", ...row }),
      stored: (id) => storedPgBytes(db.db, { id }),
      wrongType: async (id) => void (await db.db.run("update messages set metadata = null where id = $1", [id])),
      setBytes: async (id, bytes) => void (await db.db.run("update messages set metadata = convert_from(decode($1, 'hex'), 'SQL_ASCII') where id = $2", [bytes.toString("hex"), id])),
      setType: async (id, type) => void (await db.db.run("update messages set type = $1 where id = $2", [type, id])),
      touch: async (id) => void (await db.db.run("update messages set updated_at = '2025-09-09T09:09:09Z' where id = $1", [id])),
      backup: async () => {
        const file = path.join(dir, `backup-${(backups += 1)}.dump`);
        await runPgTool("pg_dump", { connection: db.url, args: ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`] });
        return openPgArchiveReader({ file, log: createLogger({ level: "silent" }) });
      },
    };
  };

  for (const family of FAMILIES) {
    it(`${family}: restored rows get their first bytes back, edited rows keep their edit, the rest stay as stored`, async () => {
      // PostgreSQL text holds no NUL byte: those rows cannot exist there.
      await scenario(await engine(), rowsOf(family).filter((row) => !row.bytes.includes(0)));
    });
  }
});
