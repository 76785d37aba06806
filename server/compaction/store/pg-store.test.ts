// The PostgreSQL compaction store's own mechanics: the batch deadline as a
// real statement_timeout, row locks on rewritten rows, the writer lock that
// makes the record's compare-and-set hold across instances, and pending-input
// judgement identical to SQLite's json_extract.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectPg, SQLSTATE, type PgError, type SqlClient } from "@/server/db/pg/client";
import { createPgTestDb, TEST_POSTGRES_URL, type PgTestDb } from "@/server/db/pg/test-db";
import { createTestDb } from "@/server/db/test-db";
import { StatementDeadlineError } from "../cleanup/statement-deadline";
import { PROBE_SQL } from "./sqlite-eligibility";
import { isPendingRequest } from "./pg-eligibility";
import { createPgCompactionStore } from "./pg-store";

describe("pending input on PostgreSQL", () => {
  it("judges request metadata exactly as SQLite's probe does (unreadable counts as pending)", () => {
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
  let other: SqlClient;
  beforeAll(async () => {
    db = await createPgTestDb();
    other = connectPg({ url: db.url });
  });
  afterAll(async () => {
    other?.close();
    await db?.close();
  });
  beforeEach(async () => {
    await db.reset();
    db.client.exec(`insert into tasks (id, title, state, created_at, updated_at) values ('t', 't', 'COMPLETED', 'x', 'x');
      insert into task_sessions (id, task_id, state, updated_at) values ('s', 't', 'COMPLETED', 'x');
      insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at)
        values ('m1', 's', 'agent', 'tool_execute', '', '{"a": 1.50}', 'x', 'x')`);
  });

  const rowidOf = (client: SqlClient) => client.one<{ rowid: number }>(`select rowid from messages where id = 'm1'`)!.rowid;
  const versionOf = (client: SqlClient) =>
    client.one<{ rowid: number; updatedAt: string; bytes: number }>(`select rowid, updated_at as "updatedAt", octet_length(metadata) as bytes from messages where id = 'm1'`)!;

  it("a batch past its deadline is cancelled by the server and rolls back everything it wrote", () => {
    const store = createPgCompactionStore(db.client);
    let caught: unknown;
    try {
      store.writeTransaction(
        (tx) => {
          tx.writeRecordText({ text: '{"written":true}', nowMs: 1 });
          expect(tx.replaceMetadataIfVersion({ ...versionOf(db.client), next: "{}" })).toBe(true);
          db.client.one(`select pg_sleep(0.5)`);
        },
        { deadlineMs: 50 },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StatementDeadlineError);
    expect(store.readRecordText()).toBeNull();
    expect(db.client.one(`select metadata from messages where id = 'm1'`)).toEqual({ metadata: '{"a": 1.50}' });
    // The timeout was the transaction's own.
    expect(db.client.one(`select current_setting('statement_timeout') as v`)).toEqual({ v: "30s" });
  });

  it("rows locked for a rewrite make a foreground writer wait for the commit, which then sees the new text", () => {
    const store = createPgCompactionStore(db.client);
    const rowid = rowidOf(db.client);
    store.writeTransaction((tx) => {
      tx.lockRowsForRewrite!([rowid]);
      let waited: unknown;
      try {
        other.transaction(() => other.run(`update messages set metadata = '{"fg":1}' where rowid = $1`, [rowid]), { lockTimeoutMs: 30 });
      } catch (error) {
        waited = error;
      }
      expect((waited as PgError).code).toBe(SQLSTATE.lockNotAvailable);
      expect(tx.replaceMetadataIfVersion({ ...versionOf(db.client), next: '{"a": 1.50, "compacted": true}' })).toBe(true);
    });
    // The foreground's guarded write compares with what is stored now: the batch's text.
    expect(other.run(`update messages set metadata = '{"fg":1}' where rowid = $1 and metadata = $2`, [rowid, '{"a": 1.50}'])).toBe(0);
    expect(db.client.one(`select metadata from messages where id = 'm1'`)).toEqual({ metadata: '{"a": 1.50, "compacted": true}' });
  });

  it("writer transactions of two instances serialize: the record's compare-and-set cannot interleave", () => {
    const mine = createPgCompactionStore(db.client);
    const theirs = createPgCompactionStore(other);
    mine.writeTransaction((tx) => {
      tx.writeRecordText({ text: '{"revision":1}', nowMs: 1 });
      // The other instance cannot even read-then-write while this transaction holds the writer lock.
      expect(() => theirs.writeTransaction((t2) => t2.writeRecordText({ text: '{"revision":1}', nowMs: 2 }), { deadlineMs: 30 })).toThrow(StatementDeadlineError);
    });
    expect(theirs.readRecordText()).toBe('{"revision":1}');
  });

  it("keeps metadata text byte-exact and reads headers without bodies in rowid order", () => {
    const store = createPgCompactionStore(db.client);
    const bounds = store.captureBounds();
    expect(bounds.upperTaskId).toBe("t");
    const headers = store.listToolRowHeaders({ sessionId: "s", afterRowid: null, upperRowid: bounds.upperMessageRowid!, limit: 10 });
    expect(headers).toEqual([{ rowid: rowidOf(db.client), id: "m1", type: "tool_execute", bytes: 11 }]);
    expect(store.readToolRowBodies({ sessionId: "s", rows: headers })[0]!.metadata).toBe('{"a": 1.50}');
    expect(typeof store.readSchemaVersion()).toBe("number");
  });

  it("reads a page's versions and bodies in one statement each, in the caller's order, without rows deleted meanwhile or of another session", () => {
    db.client.exec(`insert into task_sessions (id, task_id, state, updated_at) values ('s2', 't', 'COMPLETED', 'x');
      insert into messages (id, session_id, author_type, type, content, metadata, created_at, updated_at) values
        ('m2', 's', 'agent', 'tool_read', '', '{"b":2}', 'x', 'y'),
        ('m3', 's', 'agent', 'tool_execute', '', '{"c":3}', 'x', 'z'),
        ('m4', 's2', 'agent', 'tool_execute', '', '{"d":4}', 'x', 'x')`);
    let statements = 0;
    const counted = new Proxy(db.client, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (key === "query" || key === "one" || key === "run") statements += 1;
          return value.apply(target, args);
        };
      },
    });
    const store = createPgCompactionStore(counted);
    const all = db.client.query<{ rowid: number; id: string; type: string; bytes: number }>(
      `select rowid, id, type, octet_length(metadata) as bytes from messages order by rowid`,
    );
    const [m1, m2, m3, m4] = all;
    db.client.run(`delete from messages where id = 'm2'`);
    // Asked in an order of the caller's own, with a deleted row and another session's row among them.
    const asked = [m3!, m2!, m4!, m1!];
    const bodies = store.readToolRowBodies({ sessionId: "s", rows: asked });
    expect(statements).toBe(1);
    expect(bodies.map((row) => [row.id, row.metadata, row.updatedAt])).toEqual([
      ["m3", '{"c":3}', "z"],
      ["m1", '{"a": 1.50}', "x"],
    ]);
    const facts = store.readToolRowFacts({ sessionId: "s", rows: asked });
    expect(statements).toBe(2);
    expect(facts).toEqual([
      { rowid: m3!.rowid, id: "m3", type: "tool_execute", updatedAt: "z", bytes: 7, facts: null },
      { rowid: m1!.rowid, id: "m1", type: "tool_execute", updatedAt: "x", bytes: 11, facts: null },
    ]);
    // An empty page asks nothing.
    expect(store.readToolRowBodies({ sessionId: "s", rows: [] })).toEqual([]);
    expect(store.readToolRowFacts({ sessionId: "s", rows: [] })).toEqual([]);
    expect(statements).toBe(2);
  });
});
