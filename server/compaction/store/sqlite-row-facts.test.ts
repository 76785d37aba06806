import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { insertMessage, insertSession, insertTask, shellMetadata } from "../test-support";
import type { RowHeader } from "../store";
import { judgeRowFacts } from "../reducer/sql-removal";
import { COLLECT_BEFORE_ROW_BYTES } from "./collect-garbage";
import { PAGE_ROW_MAX_BYTES, PAGE_STATEMENT_MAX_BYTES } from "./sqlite-row-facts";
import { sqliteCompactionVerbs } from "./sqlite-store";

let t: TestDb;
beforeEach(async () => {
  t = createTestDb("ws-row-facts-");
  insertTask(t.sqlite, { id: "a" });
  insertSession(t.sqlite, { id: "a-s1", taskId: "a" });
});
afterEach(() => t.close());

function seed(count: number, stdoutBytes: number): RowHeader[] {
  return Array.from({ length: count }, (_, i) => {
    const metadata = shellMetadata(`a-c${i}`, `${i}`.padEnd(stdoutBytes, "x"));
    const rowid = insertMessage(t.sqlite, { id: `a-m${i}`, sessionId: "a-s1", type: "tool_execute", metadata });
    return { rowid, id: `a-m${i}`, type: "tool_execute", bytes: Buffer.byteLength(metadata, "utf8") };
  });
}

describe("SQLite tool-row facts", () => {
  it("a page larger than one statement's share is judged in several statements, every row once, in the caller's order", async () => {
    const rows = seed(40, 80_000);
    const total = rows.reduce((sum, row) => sum + row.bytes, 0);
    expect(total).toBeGreaterThan(3 * PAGE_STATEMENT_MAX_BYTES);
    expect(Math.max(...rows.map((row) => row.bytes))).toBeLessThanOrEqual(PAGE_ROW_MAX_BYTES);
    const shuffled = [...rows.slice(20), ...rows.slice(0, 20)];
    const facts = sqliteCompactionVerbs(t.sqlite).readToolRowFacts({ sessionId: "a-s1", rows: shuffled });
    expect(facts.map((row) => row.id)).toEqual(shuffled.map((row) => row.id));
    expect(facts.every((row) => row.facts?.kind === "shell_exec")).toBe(true);
    // The same facts as each row judged alone from its bound JSONB.
    const alone = shuffled.map((row) => (sqliteCompactionVerbs(t.sqlite).readToolRowFacts({ sessionId: "a-s1", rows: [{ ...row, bytes: PAGE_ROW_MAX_BYTES + 1 }] }))[0]);
    expect(facts).toEqual(alone);
  });

  it("a row deleted or moved to another session meanwhile is absent, the others keep their facts", async () => {
    const rows = seed(3, 100);
    t.sqlite.prepare("delete from messages where id = 'a-m1'").run();
    const facts = sqliteCompactionVerbs(t.sqlite).readToolRowFacts({ sessionId: "a-s1", rows });
    expect(facts.map((row) => row.id)).toEqual(["a-m0", "a-m2"]);
    expect(sqliteCompactionVerbs(t.sqlite).readToolRowFacts({ sessionId: "other", rows })).toEqual([]);
  });

  // A huge row as the pass's own store sees it (its header says 8 MiB), and
  // an 8 MiB Buffer nothing references any more: a WeakRef's target lives to
  // the end of the job that made it, so the check waits one job.
  async function hugeRowBesideGarbage() {
    const [row] = seed(1, 100);
    const dead = (() => new WeakRef(Buffer.alloc(8 * 1024 * 1024)))();
    await new Promise((resolve) => setImmediate(resolve));
    const store = sqliteCompactionVerbs(t.sqlite, { collectBeforeHugeRows: true });
    return { row: row!, huge: { ...row!, bytes: COLLECT_BEFORE_ROW_BYTES }, dead, store };
  }

  it("the pass's own store collects garbage before a huge row, then judges it as usual", async () => {
    const { huge, dead, store } = await hugeRowBesideGarbage();
    const [judged] = store.readToolRowFacts({ sessionId: "a-s1", rows: [huge] });
    expect(dead.deref()).toBeUndefined();
    expect(judged?.facts?.kind).toBe("shell_exec");
  });

  it("the pass's own store collects garbage before reading a huge row's body for the reducer, then reads it as usual", async () => {
    const { row, huge, dead, store } = await hugeRowBesideGarbage();
    const [body] = store.readToolRowBodies({ sessionId: "a-s1", rows: [huge] });
    expect(dead.deref()).toBeUndefined();
    expect(body?.metadata).toBe(t.sqlite.prepare("select metadata from messages where rowid = ?").pluck().get(row.rowid));
  });

  // The skeleton travels as text: the driver decodes each sequence that is
  // not UTF-8 as U+FFFD (one to three bytes become three), so only a
  // skeleton without U+FFFD is known to be its stored bytes.
  it("[TPR-RED-14] a skeleton showing U+FFFD is left to the JS reducer; invalid bytes only inside a payload are judged by SQL, byte-exact", async () => {
    const [invalidOutside, storedReplacement, invalidInPayload] = seed(3, 2000);
    const withBytes = (header: RowHeader, from: string, to: Buffer) => {
      const text = t.sqlite.prepare("select metadata from messages where rowid = ?").pluck().get(header.rowid) as string;
      const at = text.indexOf(from);
      expect(at).toBeGreaterThan(0);
      const bytes = Buffer.concat([Buffer.from(text.slice(0, at), "utf8"), to, Buffer.from(text.slice(at + from.length), "utf8")]);
      t.sqlite.prepare("update messages set metadata = cast(? as text) where rowid = ?").run(bytes, header.rowid);
      return { ...header, bytes: bytes.length };
    };
    const rows = [
      withBytes(invalidOutside!, '"title":"npm test"', Buffer.concat([Buffer.from('"title":"n'), Buffer.from([0xff]), Buffer.from('"')])),
      withBytes(storedReplacement!, '"title":"npm test"', Buffer.from('"title":"n\uFFFD"', "utf8")),
      withBytes(invalidInPayload!, '"2xxxx', Buffer.from([0x22, 0x32, 0xed, 0xa0, 0x80, 0xf0, 0x90, 0x80])),
    ];
    const [outside, replacement, inPayload] = sqliteCompactionVerbs(t.sqlite).readToolRowFacts({ sessionId: "a-s1", rows });
    expect(outside?.facts).toBeNull();
    expect(replacement?.facts).toBeNull();
    expect(inPayload?.facts?.kind).toBe("shell_exec");
    const judged = judgeRowFacts(inPayload!, "2026-01-01T00:00:00Z");
    expect(judged).toMatchObject({ outcome: "changed", removedFields: ["normalized.shell_exec.output.stdout", "normalized.shell_exec.output.stderr"] });
    if (judged?.outcome !== "changed") return;
    // Every stored byte outside the removed members is unchanged (the payload's invalid bytes went with it), then the marker.
    const stored = t.sqlite.prepare("select cast(metadata as blob) from messages where rowid = ?").pluck().get(rows[2]!.rowid) as Buffer;
    const kept = Buffer.concat([stored.subarray(0, stored.indexOf('"stdout":')), stored.subarray(stored.indexOf('"truncated":'), -1)]);
    const next = Buffer.from(judged.metadata, "utf8");
    expect(next.subarray(0, kept.length).equals(kept)).toBe(true);
    expect(next.subarray(kept.length).toString("utf8")).toMatch(/^,"payload_retention":\{[^{}]*\}\}$/);
    expect(stored.length - next.length).toBe(judged.removedBytes);
  });
});
