// Sessions keep a SQL_ASCII database's encoding: node-postgres asks for
// UTF8 at startup, and the server then refuses to send a stored value that is
// not UTF-8 (issue 25's hostile bytes, issue 27's move off pg-native, which
// kept the database's encoding).
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPgConfig } from "./config";
import { createPgDb, openSession, type PgDb } from "./pg-db";
import { TEST_POSTGRES_URL } from "./test-db";
import { withDatabase } from "./url";

const NOT_UTF8 = Buffer.from([0x61, 0xff, 0xfe, 0x62]);

async function admin<T>(fn: (run: (sql: string) => Promise<void>) => Promise<T>): Promise<T> {
  const session = await openSession(readPgConfig(TEST_POSTGRES_URL!), "admin");
  try {
    return await fn((sql) => session.exec(sql));
  } finally {
    await session.close();
  }
}

describe.skipIf(!TEST_POSTGRES_URL)("PostgreSQL client encoding", () => {
  const names = { ascii: `test_enc_${process.pid}_${crypto.randomBytes(4).toString("hex")}`, utf8: `test_enc_${process.pid}_${crypto.randomBytes(4).toString("hex")}` };
  const config = (name: string) => readPgConfig(withDatabase(TEST_POSTGRES_URL!, name), { PG_POOL_MAX: "2" });
  let ascii: PgDb;
  let utf8: PgDb;
  beforeAll(async () => {
    await admin(async (run) => {
      await run(`create database ${names.ascii} encoding 'SQL_ASCII' template template0 lc_collate 'C' lc_ctype 'C'`);
      await run(`create database ${names.utf8} encoding 'UTF8' template template0`);
    });
    ascii = createPgDb(config(names.ascii));
    utf8 = createPgDb(config(names.utf8));
    await ascii.exec(`create table t (id int primary key, v text)`);
    await ascii.run(`insert into t values (1, convert_from(decode($1, 'hex'), 'SQL_ASCII'))`, [NOT_UTF8.toString("hex")]);
  });
  afterAll(async () => {
    await ascii?.close();
    await utf8?.close();
    await admin(async (run) => {
      for (const name of Object.values(names)) await run(`drop database if exists ${name} with (force)`);
    });
  });

  it("[#27] on a SQL_ASCII database a stored value that is not UTF-8 reads (with U+FFFD) on pooled sessions, in transactions and on dedicated sessions", async () => {
    expect(await ascii.one(`select v from t where id = 1`)).toEqual({ v: "a\ufffd\ufffdb" });
    expect(await ascii.transaction(() => ascii.one<{ v: string }>(`select v from t where id = 1`))).toEqual({ v: "a\ufffd\ufffdb" });
    // Every pooled session, not only the first one.
    const both = await Promise.all([0, 1].map(() => ascii.transaction(() => ascii.one<{ enc: string; pid: number }>(`select current_setting('client_encoding') as enc, pg_backend_pid() as pid`))));
    expect(both.map((row) => row!.enc)).toEqual(["SQL_ASCII", "SQL_ASCII"]);
    expect(new Set(both.map((row) => row!.pid)).size).toBe(2);
    const session = await ascii.session("encoding test");
    try {
      expect(await session.one(`select v, current_setting('client_encoding') as enc from t where id = 1`)).toEqual({ v: "a\ufffd\ufffdb", enc: "SQL_ASCII" });
    } finally {
      await session.close();
    }
  });

  it("[#27] on a SQL_ASCII database text we send is stored as its UTF-8 bytes and the stored bytes stay as they were", async () => {
    await ascii.run(`insert into t values (2, $1)`, ["é€"]);
    const hex = async (id: number) => (await ascii.one<{ hex: string }>(`select encode(convert_to(v, 'SQL_ASCII'), 'hex') as hex from t where id = $1`, [id]))!.hex;
    expect(await hex(2)).toBe(Buffer.from("é€").toString("hex"));
    expect(await ascii.one(`select v from t where id = 2`)).toEqual({ v: "é€" });
    expect(await hex(1)).toBe(NOT_UTF8.toString("hex"));
  });

  it("[#27] a UTF8 database keeps client_encoding UTF8", async () => {
    expect(await utf8.one(`select current_setting('client_encoding') as enc`)).toEqual({ enc: "UTF8" });
    const session = await utf8.session("encoding test");
    try {
      expect(await session.one(`select current_setting('client_encoding') as enc`)).toEqual({ enc: "UTF8" });
    } finally {
      await session.close();
    }
  });
});
