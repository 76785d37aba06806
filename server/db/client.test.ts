import { afterEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./test-db";
import { parseDatabaseUrl } from "./url";
import { openDatabase } from "./client";

let t: TestDb | undefined;
afterEach(() => t?.close());

describe("openDatabase", () => {
  it("applies WAL, busy_timeout and foreign keys and runs migrations", () => {
    t = createTestDb();
    expect(t.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(t.sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(t.sqlite.pragma("busy_timeout", { simple: true })).toBe(5000);
    const tables = t.sqlite
      .prepare("select name from sqlite_master where type='table' order by name")
      .all()
      .map((r) => (r as { name: string }).name);
    for (const name of ["tasks", "task_sessions", "turns", "messages", "queued_messages", "runs", "users", "auth_sessions", "settings"]) {
      expect(tables).toContain(name);
    }
  });

  it("keeps the driver's page cache unless told, and takes a size in KiB", () => {
    t = createTestDb();
    expect(t.sqlite.pragma("cache_size", { simple: true })).toBe(-16000);
    const small = openDatabase({ file: t.file, migrate: false, cacheKiB: 2048 });
    try {
      expect(small.sqlite.pragma("cache_size", { simple: true })).toBe(-2048);
    } finally {
      small.sqlite.close();
    }
    for (const cacheKiB of [0, -5, 1.5, Number.NaN]) expect(() => openDatabase({ file: t!.file, migrate: false, cacheKiB })).toThrow(RangeError);
  });

  it("names the eligibility indexes consistently", () => {
    t = createTestDb();
    const idx = t.sqlite
      .prepare("select name from sqlite_master where type='index' and name not like 'sqlite_%'")
      .all()
      .map((r) => (r as { name: string }).name);
    expect(idx).toEqual(
      expect.arrayContaining([
        "messages_session_created_at_idx",
        "messages_session_updated_at_idx",
        "turns_session_idx",
        "task_sessions_task_idx",
      ]),
    );
  });
});

describe("parseDatabaseUrl", () => {
  it("defaults to ./data/workspace.db", () => {
    expect(parseDatabaseUrl(undefined, "/srv/app")).toEqual({ engine: "sqlite", file: "/srv/app/data/workspace.db" });
  });
  it("selects the PostgreSQL engine for postgres:// and postgresql:// URLs without connecting", () => {
    expect(parseDatabaseUrl("postgres://u:p@h/db")).toEqual({ engine: "postgres", url: "postgres://u:p@h/db" });
    expect(parseDatabaseUrl("postgresql://h/db")).toEqual({ engine: "postgres", url: "postgresql://h/db" });
  });
  it("rejects other schemes without echoing credentials", () => {
    expect(() => parseDatabaseUrl("mysql://user:secret@h/db")).toThrow(/scheme "mysql"/);
    expect(() => parseDatabaseUrl("mysql://user:secret@h/db")).not.toThrow(/secret/);
  });
});
