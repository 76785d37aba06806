// The PostgreSQL compaction store's own mechanics: the batch deadline as a
// real statement_timeout, row locks on rewritten rows, the writer lock that
// makes the record's compare-and-set hold across instances, and pending-input
// judgement identical to SQLite's json_extract.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readPgConfig } from "@/server/db/pg/config";
import { SQLSTATE, type PgError } from "@/server/db/pg/errors";
import { createPgDb, type PgDb, type PgQueryable } from "@/server/db/pg/pg-db";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "@/server/db/pg/test-db";
import { createTestDb } from "@/server/db/test-db";
import { StatementDeadlineError } from "../cleanup/statement-deadline";
import { PROBE_SQL } from "./sqlite-eligibility";
import { isPendingRequest } from "./pg-eligibility";
import { createPgCompactionStore } from "./pg-store";
import type { TurnSummary } from "../store";

describe("pending input on PostgreSQL", () => {
  it("judges request metadata exactly as SQLite's probe does (unreadable counts as pending)", async () => {
    const texts = [
      "{}",
      '{"status":"pending"}',
      '{"status":""}',
      '{"status":null}',
      '{"status":"approved"}',
      '{"status":0}',
      '{"status":false}',
      '{"status":{"x":1}}',
      '{"status":["pending"]}',
      "[]",
      '"pending"',
      "{not json",
      "",
      '{"status":"approved","status":"pending"}',
      '{"nested":{"status":"approved"}}',
    ];
    const db = createTestDb("pg-pending-");
    try {
      db.sqlite.exec(`insert into tasks (id, title, state, created_at, updated_at) values ('t', 't', 'COMPLETED', 'x', 'x');
        insert into task_sessions (id, task_id, state, updated_at) values ('s', 't', 'COMPLETED', 'x')`);
      const insert = db.sqlite.prepare(
        `insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) values (?, 's', 'agent', 'permission_request', '', ?, 'x', 'x')`,
      );
      for (const [i, text] of texts.entries()) {
        db.sqlite.exec("delete from messages");
        insert.run(`m${i}`, text);
        const sqlite = db.sqlite.prepare(PROBE_SQL.pendingInput).get("s") !== undefined;
        expect(isPendingRequest(text), text).toBe(sqlite);
      }
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!TEST_POSTGRES_URL)("PostgreSQL compaction store", () => {
  let db: PgTestDb;
  // Another client of the same database (its own pool): raw statements of the test, never part of a store's transaction.
  let other: PgDb;
  beforeAll(async () => {
    db = await createPgTestDb();
    other = createPgDb(readPgConfig(db.url, { PG_POOL_MAX: "2" }));
  });
  afterAll(async () => {
    await other?.close();
    await db?.close();
  });
  beforeEach(async () => {
    await db.reset();
    await other.exec(`insert into tasks (id, title, state, created_at, updated_at) values ('t', 't', 'COMPLETED', 'x', 'x');
      insert into task_sessions (id, task_id, state, updated_at) values ('s', 't', 'COMPLETED', 'x');
      insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at)
        values ('m1', 's', 'agent', 'tool_execute', '', '{"a": 1.50}', 'x', 'x')`);
  });

  const rowidOf = async (client: PgQueryable) => (await client.one<{ rowid: number }>(`select rowid from messages where id = 'm1'`))!.rowid;
  const versionOf = async (client: PgQueryable) =>
    (await client.one<{ rowid: number; updatedAt: string; bytes: number }>(`select rowid, updated_at as "updatedAt", octet_length(metadata) as bytes from messages where id = 'm1'`))!;

  it("a batch past its deadline is cancelled by the server and rolls back everything it wrote", async () => {
    const store = createPgCompactionStore(db.db);
    let caught: unknown;
    try {
      await store.writeTransaction(
        async (tx) => {
          await tx.writeRecordText({ text: '{"written":true}', nowMs: 1 });
          expect(await tx.replaceMetadataIfVersion({ ...(await versionOf(other)), next: "{}" })).toBe(true);
          await db.db.one(`select pg_sleep(0.5)`);
        },
        { deadlineMs: 50 },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StatementDeadlineError);
    expect(await store.readRecordText()).toBeNull();
    expect(await other.one(`select metadata from messages where id = 'm1'`)).toEqual({ metadata: '{"a": 1.50}' });
    // The timeout was the transaction's own: a pooled session afterwards has the configured one.
    expect(await db.db.one(`select current_setting('statement_timeout') as v`)).toEqual({ v: "30s" });
  });

  it("rows locked for a rewrite make a foreground writer wait for the commit, which then sees the new text", async () => {
    const store = createPgCompactionStore(db.db);
    const rowid = (await rowidOf(other));
    await store.writeTransaction(async (tx) => {
      await tx.lockRowsForRewrite!([rowid]);
      let waited: unknown;
      try {
        await other.transaction(() => other.run(`update messages set metadata = '{"fg":1}' where rowid = $1`, [rowid]), { lockTimeoutMs: 30 });
      } catch (error) {
        waited = error;
      }
      expect((waited as PgError).code).toBe(SQLSTATE.lockNotAvailable);
      expect(await tx.replaceMetadataIfVersion({ ...(await versionOf(other)), next: '{"a": 1.50, "compacted": true}' })).toBe(true);
    });
    // The foreground's guarded write compares with what is stored now: the batch's text.
    expect(await other.run(`update messages set metadata = '{"fg":1}' where rowid = $1 and metadata = $2`, [rowid, '{"a": 1.50}'])).toBe(0);
    expect(await other.one(`select metadata from messages where id = 'm1'`)).toEqual({ metadata: '{"a": 1.50, "compacted": true}' });
  });

  it("writer transactions of two instances serialize: the record's compare-and-set cannot interleave", async () => {
    const mine = createPgCompactionStore(db.db);
    const theirPool = createPgDb(readPgConfig(db.url, { PG_POOL_MAX: "2" }));
    try {
      const theirs = createPgCompactionStore(theirPool);
      await mine.writeTransaction(async (tx) => {
        await tx.writeRecordText({ text: '{"revision":1}', nowMs: 1 });
        // The other instance cannot even read-then-write while this transaction holds the writer lock.
        await expect(theirs.writeTransaction((t2) => t2.writeRecordText({ text: '{"revision":1}', nowMs: 2 }), { deadlineMs: 30 })).rejects.toThrow(StatementDeadlineError);
      });
      expect(await theirs.readRecordText()).toBe('{"revision":1}');
    } finally {
      await theirPool.close();
    }
  });

  it("keeps metadata text byte-exact and reads headers without bodies in rowid order", async () => {
    const store = createPgCompactionStore(db.db);
    const bounds = await store.captureBounds();
    expect(bounds.upperTaskId).toBe("t");
    const headers = await store.listToolRowHeaders({ sessionId: "s", afterRowid: null, upperRowid: bounds.upperMessageRowid!, limit: 10 });
    expect(headers).toEqual([{ rowid: (await rowidOf(other)), id: "m1", type: "tool_execute", bytes: 11 }]);
    expect((await store.readToolRowBodies({ sessionId: "s", rows: headers }))[0]!.metadata).toBe('{"a": 1.50}');
    expect(typeof (await store.readSchemaVersion())).toBe("number");
  });

  it("[TPR-TX-02] writes a batch in one statement: each row under its own guard (text or version), a row changed meanwhile left as it is", async () => {
    await other.exec(`insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) values
        ('m2', 's', 'agent', 'tool_read', '', '{"b": "it''s \\ \"q\""}', 'x', 'v2'),
        ('m3', 's', 'agent', 'tool_execute', '', '{"c":3}', 'x', 'v3'),
        ('m4', 's', 'agent', 'tool_execute', '', '{"d":4}', 'x', 'v4')`);
    const rows = await other.query<{ rowid: number; id: string; metadata: string; updatedAt: string; bytes: number }>(
      `select rowid, id, metadata, updated_at as "updatedAt", octet_length(metadata) as bytes from messages order by rowid`,
    );
    const [m1, m2, m3, m4] = rows;
    // A foreground write to m3 after it was read, and one to m4 that changes its version.
    await other.exec(`update messages set metadata = '{"c":"edited"}' where id = 'm3'; update messages set updated_at = 'later' where id = 'm4'`);
    let statements = 0;
    const counted = new Proxy(db.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (key === "query" || key === "one" || key === "run") statements += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = createPgCompactionStore(counted);
    const written = await store.writeTransaction(async (tx) =>
      tx.replaceMetadataBatch!([
        { rowid: m1!.rowid, observed: m1!.metadata, updatedAt: m1!.updatedAt, bytes: m1!.bytes, next: '{"a":"new"}' },
        { rowid: m2!.rowid, observed: null, updatedAt: m2!.updatedAt, bytes: m2!.bytes, next: '{"b": "still it\'s \\"}' },
        { rowid: m3!.rowid, observed: m3!.metadata, updatedAt: m3!.updatedAt, bytes: m3!.bytes, next: '{"c":"lost"}' },
        { rowid: m4!.rowid, observed: null, updatedAt: m4!.updatedAt, bytes: m4!.bytes, next: '{"d":"lost"}' },
      ]),
    );
    expect(statements).toBe(1);
    expect([...written].sort()).toEqual([m1!.rowid, m2!.rowid].sort());
    expect(await other.query(`select id, metadata from messages order by rowid`)).toEqual([
      { id: "m1", metadata: '{"a":"new"}' },
      { id: "m2", metadata: '{"b": "still it\'s \\"}' },
      { id: "m3", metadata: '{"c":"edited"}' },
      { id: "m4", metadata: '{"d":4}' },
    ]);
  });

  it("[TPR-RED-10] a batch the server refuses names the refused row, and the rows before it are not kept", async () => {
    await other.exec(`insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) values ('m2', 's', 'agent', 'tool_read', '', '{"b":2}', 'x', 'x');
      create function refuse_m2() returns trigger language plpgsql as $$ begin raise exception 'kept by policy'; end $$;
      create trigger refuse_m2 before update of metadata on messages for each row when (old.id = 'm2') execute function refuse_m2()`);
    try {
      const rows = await other.query<{ rowid: number; metadata: string; bytes: number }>(`select rowid, metadata, octet_length(metadata) as bytes from messages order by rowid`);
      const store = createPgCompactionStore(db.db);
      const attempt = store.writeTransaction(async (tx) =>
        tx.replaceMetadataBatch!(rows.map((row) => ({ rowid: row.rowid, observed: row.metadata, updatedAt: "x", bytes: row.bytes, next: "{}" }))),
      );
      await expect(attempt).rejects.toMatchObject({ name: "WriteRefusedError", rowid: rows[1]!.rowid });
      expect(await other.query(`select metadata from messages order by rowid`)).toEqual([{ metadata: '{"a": 1.50}' }, { metadata: '{"b":2}' }]);
    } finally {
      await other.exec(`drop trigger refuse_m2 on messages; drop function refuse_m2()`);
    }
  });

  it("[TPR-ELIG-12] reads a task's probes in one statement and answers each exactly as the probes one by one", async () => {
    await other.exec(`update tasks set created_at_ms = 1, updated_at_ms = 2;
      insert into task_holds (task_id, held_at, held_at_ms, held_by) values ('t', 'x', 1, 'u');
      insert into task_sessions (id, task_id, state, updated_at, updated_at_ms, started_at, started_at_ms) values ('s2', 't', 'FAILED', 'y', 5, 'z', 3);
      insert into turns (id, session_id, started_at, started_at_ms, completed_at, completed_at_ms) values ('u1', 's', 'a', 10, 'b', 20), ('u2', 's', 'c', null, null, null), ('u3', 's2', 'd', 7, null, null);
      insert into messages (id, session_id, turn_id, author_type, type, content, metadata, created_at, created_at_ms, updated_at, updated_at_ms) values
        ('r1', 's2', 'u1', 'agent', 'permission_request', '', '{"status":"approved"}', 'x', 30, 'y', 40),
        ('r2', 's2', null, 'agent', 'clarification_request', '', '{"status":"pending"}', 'x', null, 'y', 50);
      insert into queued_messages (id, session_id, content, queued_at) values ('q1', 's2', 'hi', 'x');
      insert into runs (id, session_id, state) values ('run1', 's', 'SUCCEEDED'), ('run2', 's2', 'RUNNING')`);
    const store = createPgCompactionStore(db.db);
    // Both reads: every probe, and the in-batch re-check's indexed ones (the others then asked one by one).
    for (const indexedOnly of [false, true]) {
    const probes = await store.taskProbes!("t", { indexedOnly });
    for (const verb of ["readTaskActivity", "isTaskHeld", "listSessionActivity"] as const) expect(await probes[verb]("t"), verb).toEqual(await store[verb]("t"));
    const perSession = [
      "summarizeTurns",
      "latestMessageUpdate",
      "latestMessageCreation",
      "hasUnparsedMessageUpdate",
      "hasUnparsedMessageCreation",
      "hasPendingInput",
      "hasForeignTurnMessage",
      "hasQueuedMessage",
      "findUnfinishedRunState",
      "readSessionWatermark",
    ] as const;
    for (const sessionId of ["s", "s2"]) {
      for (const verb of perSession) {
        const direct = await store[verb](sessionId);
        // The one-by-one turn summary also carries its row count, which no caller reads.
        const summary = ({ open, invalid, maxStarted, maxCompleted }: TurnSummary) => ({ open, invalid, maxStarted, maxCompleted });
        const answered = await probes[verb](sessionId);
        if (verb === "summarizeTurns") expect(summary(answered as TurnSummary), `${verb}(${sessionId})`).toEqual(summary(direct as TurnSummary));
        else expect(answered, `${verb}(${sessionId})`).toEqual(direct);
      }
    }
    // The two sessions differ on every fact, so the comparison above compares something.
    expect(await probes.hasQueuedMessage("s2")).toBe(true);
    expect(await probes.hasPendingInput("s2")).toBe(true);
    expect(await probes.findUnfinishedRunState("s2")).toBe("RUNNING");
    expect(await probes.hasForeignTurnMessage("s2")).toBe(true);
    expect(await probes.summarizeTurns("s")).toMatchObject({ open: 1, invalid: 1, maxStarted: 10, maxCompleted: 20 });
    }
    // A task that does not exist: no task, no sessions.
    const none = await store.taskProbes!("missing");
    expect(await none.readTaskActivity("missing")).toBeNull();
    expect(await none.listSessionActivity("missing")).toEqual([]);
  });

  it("[TPR-ELIG-12] reads several tasks' probes in one statement (a batch's re-check) and answers each task as its own read does", async () => {
    await other.exec(`insert into tasks (id, title, state, created_at, created_at_ms, updated_at, updated_at_ms) values ('t2', 't2', 'FAILED', 'x', 3, 'y', 4);
      insert into task_holds (task_id, held_at, held_at_ms, held_by) values ('t2', 'x', 1, 'u');
      insert into task_sessions (id, task_id, state, updated_at, updated_at_ms) values ('s3', 't2', 'CANCELLED', 'y', 6);
      insert into messages (id, session_id, author_type, type, content, metadata, created_at, created_at_ms, updated_at, updated_at_ms) values
        ('m9', 's3', 'agent', 'tool_read', '', '{}', 'x', 7, 'y', 8);
      insert into queued_messages (id, session_id, content, queued_at) values ('q2', 's3', 'hi', 'x')`);
    const store = createPgCompactionStore(db.db);
    let statements = 0;
    const counted = createPgCompactionStore(new Proxy(db.db, {
      get: (target, key, receiver) => (key === "query" || key === "one" ? (...args: unknown[]) => (statements++, (target[key] as (...a: unknown[]) => unknown)(...args)) : Reflect.get(target, key, receiver)),
    }));
    const both = await counted.tasksProbes!(["t", "t2", "missing"], { indexedOnly: true });
    expect(statements).toBe(1);
    for (const taskId of ["t", "t2", "missing"]) {
      const alone = await store.taskProbes!(taskId, { indexedOnly: true });
      for (const verb of ["readTaskActivity", "isTaskHeld", "listSessionActivity"] as const) expect(await both[verb](taskId), `${verb}(${taskId})`).toEqual(await alone[verb](taskId));
      for (const session of await alone.listSessionActivity(taskId)) {
        for (const verb of ["readSessionWatermark", "latestMessageUpdate", "hasUnparsedMessageUpdate", "hasQueuedMessage", "findUnfinishedRunState"] as const) {
          expect(await both[verb](session.id), `${verb}(${session.id})`).toEqual(await alone[verb](session.id));
        }
      }
    }
    // Every answer above came from the one read.
    expect(statements).toBe(1);
    expect(await both.isTaskHeld("t2")).toBe(true);
    expect(await both.hasQueuedMessage("s3")).toBe(true);
  });

  it("reads a page's versions and bodies in one statement each, in the caller's order, without rows deleted meanwhile or of another session", async () => {
    await other.exec(`insert into task_sessions (id, task_id, state, updated_at) values ('s2', 't', 'COMPLETED', 'x');
      insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) values
        ('m2', 's', 'agent', 'tool_read', '', '{"b":2}', 'x', 'y'),
        ('m3', 's', 'agent', 'tool_execute', '', '{"c":3}', 'x', 'z'),
        ('m4', 's2', 'agent', 'tool_execute', '', '{"d":4}', 'x', 'x')`);
    let statements = 0;
    const counted = new Proxy(db.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (key === "query" || key === "one" || key === "run") statements += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = createPgCompactionStore(counted);
    const all = await other.query<{ rowid: number; id: string; type: string; bytes: number }>(
      `select rowid, id, type, octet_length(metadata) as bytes from messages order by rowid`,
    );
    const [m1, m2, m3, m4] = all;
    await other.run(`delete from messages where id = 'm2'`);
    // Asked in an order of the caller's own, with a deleted row and another session's row among them.
    const asked = [m3!, m2!, m4!, m1!];
    const bodies = await store.readToolRowBodies({ sessionId: "s", rows: asked });
    expect(statements).toBe(1);
    expect(bodies.map((row) => [row.id, row.metadata, row.updatedAt])).toEqual([
      ["m3", '{"c":3}', "z"],
      ["m1", '{"a": 1.50}', "x"],
    ]);
    const facts = await store.readToolRowFacts({ sessionId: "s", rows: asked });
    expect(statements).toBe(2);
    expect(facts).toEqual([
      { rowid: m3!.rowid, id: "m3", type: "tool_execute", updatedAt: "z", bytes: 7, facts: null },
      { rowid: m1!.rowid, id: "m1", type: "tool_execute", updatedAt: "x", bytes: 11, facts: null },
    ]);
    // An empty page asks nothing.
    expect(await store.readToolRowBodies({ sessionId: "s", rows: [] })).toEqual([]);
    expect(await store.readToolRowFacts({ sessionId: "s", rows: [] })).toEqual([]);
    expect(statements).toBe(2);
  });
});
