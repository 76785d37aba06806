// A cleanup pass over a workspace whose tool rows another writer left with
// hostile bytes (written with raw SQL): text that is not UTF-8, keys with an
// escaped NUL, bytes after the document, BLOB values, nesting at SQLite's
// limit, a 20 000-item mutations row, and rows whose rewrite the database
// refuses. The pass ends succeeded, compacts every ordinary row beside them,
// keeps every member outside the payloads byte for byte, and leaves the rows
// it cannot compact exactly as stored.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "@/server/clock";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import type { Expected } from "../reducer/hostile-expect-test-support";
import { leaf } from "../reducer/hostile-tree-test-support";
import { NOW_MS, armPolicy, insertMessage, insertSession, insertTask, insertTurn, seedOldTask, storeOf } from "../test-support";
import { FF, hostile, hostileWorkspaceRows, m, shell, str } from "./hostile-workspace-test-support";
import { runCleanupPass } from "./pass";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-hostile-");
  await armPolicy(t.sqlite);
});
afterEach(() => t.close());

function insertRaw(id: string, row: { type: string; bytes: Buffer; storage: "text" | "blob" }): void {
  t.sqlite
    .prepare(
      `insert into messages (id, session_id, turn_id, author_type, type, content, metadata, tool_call_id, created_at, created_at_ms, updated_at, updated_at_ms)
       values (?, 'h-s1', 'h-u1', 'agent', ?, 'tool', ${row.storage === "blob" ? "?" : "cast(? as text)"}, ?, '2025-01-01T00:00:00Z', ?, '2025-01-01T00:00:00Z', ?)`,
    )
    .run(id, row.type, row.bytes, `call-${id}`, Date.parse("2025-01-01T00:00:00Z"), Date.parse("2025-01-01T00:00:00Z"));
}

const stored = (id: string) => t.sqlite.prepare("select typeof(metadata) as type, cast(metadata as blob) as bytes from messages where id = ?").get(id) as { type: string; bytes: Buffer };
const run = () => runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS), operationId: "run-1", wait: async () => {} });

describe("a pass over hostile stored bytes", () => {
  it("[TPR-RED-10][TPR-RED-14][TPR-BAT-05] ends succeeded, compacts every ordinary row, keeps every byte outside the payloads and leaves malformed rows as stored", async () => {
    seedOldTask(t.sqlite, "a", 20);
    insertTask(t.sqlite, { id: "h" });
    insertSession(t.sqlite, { id: "h-s1", taskId: "h" });
    insertTurn(t.sqlite, { id: "h-u1", sessionId: "h-s1" });
    seedOldTask(t.sqlite, "z", 20);
    const rows = hostileWorkspaceRows();
    for (const [name, row] of Object.entries(rows)) insertRaw(name, row);
    // Stored exactly as generated (no driver re-encoding on the way in).
    for (const [name, row] of Object.entries(rows)) expect(stored(name).bytes.equals(row.bytes), name).toBe(true);

    const result = await run();
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    const marked = (prefix: string) => (t.sqlite.prepare("select count(*) as n from messages where id like ? and json_extract(metadata, '$.payload_retention.version') = 1").get(`${prefix}%`) as { n: number }).n;
    expect(marked("a-")).toBe(20);
    expect(marked("z-")).toBe(20);

    for (const [name, row] of Object.entries(rows)) {
      const after = stored(name);
      if (row.expect.outcome === "changed") {
        expect(after.type, name).toBe("text");
        expect(after.bytes.equals(row.expect.bytes), `${name}: ${after.bytes.subarray(0, 200).toString("latin1")}`).toBe(true);
        expect(row.bytes.length - after.bytes.length, name).toBe(row.expect.removedBytes);
      } else {
        expect(after.type, name).toBe(row.storage);
        expect(after.bytes.equals(row.bytes), name).toBe(true);
      }
    }
    // Which rows the rules compact and which they keep, named.
    const outcome = (row: { expect: Expected }) => (row.expect.outcome === "changed" ? "changed" : row.expect.reason);
    expect(Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, outcome(row)]))).toEqual({
      stdoutInvalid: "changed",
      titleInvalidPretty: "changed",
      nulStdout: "changed",
      nulOldContent: "changed",
      trailingNul: "malformed",
      blob: "not_text",
      deep1000: "changed",
      deep1001: "malformed",
      noPayload: "no_payload",
      wide: "changed",
    });
    // The NUL-suffixed members are not payload: still there, byte for byte.
    expect(stored("nulStdout").bytes.includes(Buffer.from(`"stdout\\u0000":"${"kept".repeat(300)}"`, "latin1"))).toBe(true);
    expect(stored("nulOldContent").bytes.includes(Buffer.from(`"old_content\\u0000":"${`kept${FF}`.repeat(300)}"`, "latin1"))).toBe(true);
    expect(result.operation).toMatchObject({ changedMessages: 46, skipped: { malformed: 2, not_text: 1, no_payload: 1 } });
  });

  it("[TPR-TX-02] a row whose rewrite the database refuses is skipped `write_refused` after one rollback, and the pass compacts the rest", async () => {
    seedOldTask(t.sqlite, "a", 30);
    t.sqlite.exec(`create trigger refuse_a_m5 before update of metadata on messages when old.id = 'a-m5' begin select raise(abort, 'kept by policy'); end`);
    const before = (t.sqlite.prepare("select metadata from messages where id = 'a-m5'").get() as { metadata: string }).metadata;
    const result = await run();
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation).toMatchObject({ changedMessages: 29, skipped: { write_refused: 1 } });
    expect((t.sqlite.prepare("select metadata from messages where id = 'a-m5'").get() as { metadata: string }).metadata).toBe(before);
  });

  it("[TPR-TX-02] a row the guard never matches (the write changes nothing) is counted `conflict` once per pass and the pass moves on", async () => {
    seedOldTask(t.sqlite, "a", 30);
    t.sqlite.exec(`create trigger ignore_a_m7 before update of metadata on messages when old.id = 'a-m7' begin select raise(ignore); end`);
    for (let pass = 1; pass <= 2; pass++) {
      const result = await runCleanupPass({ store: storeOf(t.sqlite), clock: manualClock(NOW_MS + pass), operationId: `run-${pass}`, wait: async () => {} });
      expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
      expect(result.operation).toMatchObject({ changedMessages: pass === 1 ? 29 : 0, skipped: { conflict: 1 } });
    }
  });

  it("[TPR-BAT-05] the 32 MiB limit counts stored bytes: a row just under it whose text is not UTF-8 is compacted, not `oversize`", async () => {
    insertTask(t.sqlite, { id: "h" });
    insertSession(t.sqlite, { id: "h-s1", taskId: "h" });
    insertTurn(t.sqlite, { id: "h-u1", sessionId: "h-s1" });
    // Each stray FF would decode to U+FFFD (3 bytes): 32 MiB - 4 KiB stored, ~96 MiB decoded. Pretty-printed, so the reducer judges it.
    const big = hostile("tool_execute", shell([m("exit_code", leaf("0")), m("stdout", str(FF.repeat(32 * 1024 * 1024 - 4096)))]), { pretty: true });
    expect(big.bytes.length).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(big.expect.outcome).toBe("changed");
    insertRaw("big", big);
    const result = await run();
    expect(result.operation).toMatchObject({ changedMessages: 1 });
    expect(result.operation?.skipped.oversize).toBeUndefined();
    expect(big.expect.outcome === "changed" && stored("big").bytes.equals(big.expect.bytes)).toBe(true);
  });

  /**
   * Rebuilds the (empty) messages table with its DDL, indexes and triggers
   * as migrated, but without NOT NULL on metadata: a file another tool made
   * or altered can hold NULL there.
   */
  function allowNullMetadata(): void {
    const table = t.sqlite.prepare("select sql from sqlite_schema where type = 'table' and name = 'messages'").pluck().get() as string;
    const others = t.sqlite.prepare("select sql from sqlite_schema where tbl_name = 'messages' and type in ('index', 'trigger') and sql is not null").pluck().all() as string[];
    const loose = table.replace("`metadata` text DEFAULT '{}' NOT NULL", "`metadata` text DEFAULT '{}'");
    expect(loose).not.toBe(table);
    t.sqlite.pragma("foreign_keys = off");
    t.sqlite.transaction(() => {
      t.sqlite.exec(loose.replace("CREATE TABLE `messages`", "CREATE TABLE `messages_loose`"));
      t.sqlite.exec("drop table messages; alter table messages_loose rename to messages");
      for (const sql of others) t.sqlite.exec(sql);
    })();
    t.sqlite.pragma("foreign_keys = on");
  }

  it("[TPR-ELIG-12] NULL metadata where the table allows it: a tool row is skipped `not_text` and stays NULL, a request counts as pending input, the pass goes on", async () => {
    allowNullMetadata();
    seedOldTask(t.sqlite, "a", 5);
    seedOldTask(t.sqlite, "p", 2);
    t.sqlite.prepare("update messages set metadata = null where id = 'a-m2'").run();
    insertMessage(t.sqlite, { id: "p-ask", sessionId: "p-s1", turnId: "p-u1", type: "permission_request", metadata: "{}" });
    t.sqlite.prepare("update messages set metadata = null where id = 'p-ask'").run();
    const result = await run();
    expect(result).toMatchObject({ state: "succeeded", reason: "complete" });
    expect(result.operation).toMatchObject({ changedMessages: 4, skipped: { not_text: 1, pending_input: 1 } });
    expect(t.sqlite.prepare("select typeof(metadata) from messages where id in ('a-m2', 'p-ask') order by id").pluck().all()).toEqual(["null", "null"]);
  });
});

