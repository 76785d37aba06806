// Test-only: the differential fuzz of Messages compaction on stored bytes.
// Generated rows (hostile-rows-test-support.ts) are written with raw SQL
// into a real database (SQLite: text with exactly their bytes, or BLOBs;
// PostgreSQL: a SQL_ASCII database, which keeps any bytes, NULL for the
// values that are not text), then judged three ways and compared:
//   - the SQL path: the store's facts (the page statement and the single-row
//     statement, which must agree) judged by sql-removal.ts;
//   - the JS reducer on the body the store reads;
//   - the model's independent expectation (every byte outside the removed
//     spans unchanged, removed_bytes equal to the stored byte difference).
// The pipeline (page planning, preparePage, the batch's guarded writes) then
// writes each changed row, and the stored bytes must be the expectation's.
import { isDeepStrictEqual } from "node:util";
import { createTestDb } from "@/server/db/test-db";
import { planMessagePage } from "../cleanup/candidates";
import { preparePage } from "../cleanup/prepare-page";
import { createTally } from "../cleanup/tally";
import { PAGE_ROW_MAX_BYTES } from "../store/sqlite-row-facts";
import type { CompactionStore } from "../store";
import { insertSession, insertTask, storeOf } from "../test-support";
import type { Expected } from "./hostile-expect-test-support";
import { hostileRows, type Family, type HostileRow } from "./hostile-rows-test-support";
import { reduceToolPayload, type ReduceResult } from "./reducer";
import { judgeRowFacts } from "./sql-removal";

export const FUZZ_REMOVED_AT = "2026-06-01T00:00:00.000Z";

export type FamilyStats = {
  rows: number;
  /** Rows the SQL path judged itself (the rest it left to the reducer). */
  sqlJudged: number;
  sqlChanged: number;
  changed: number;
  skipped: Record<string, number>;
  differences: number;
};

export type Difference = { family: Family; index: number; what: string; detail: string; head: string };

type Outcome = { outcome: "changed"; bytes: Buffer; fields: string[]; removedBytes: number } | { outcome: "skipped"; reason: string } | { outcome: "threw"; error: string };

const textBytes = (text: string, encoding: unknown) => Buffer.from(text, encoding === "bytes" ? "latin1" : "utf8");

function outcomeOf(result: ReduceResult, encoding: unknown): Outcome {
  if (result.outcome === "skipped") return result;
  return { outcome: "changed", bytes: textBytes(result.metadata, encoding), fields: result.removedFields, removedBytes: result.removedBytes };
}

async function attempt(fn: () => Outcome | Promise<Outcome>): Promise<Outcome> {
  try {
    return await fn();
  } catch (error) {
    return { outcome: "threw", error: (error as Error).message.slice(0, 120) };
  }
}

const describeOutcome = (o: Outcome | Expected) =>
  o.outcome === "changed" ? `changed ${o.fields.join(",")} -${o.removedBytes} (${o.bytes.length} bytes)` : o.outcome === "skipped" ? `skipped ${o.reason}` : `threw ${o.error}`;

const same = (a: Outcome | Expected, b: Outcome | Expected) =>
  a.outcome === b.outcome &&
  (a.outcome !== "changed" || (b.outcome === "changed" && a.bytes.equals(b.bytes) && isDeepStrictEqual(a.fields, b.fields) && a.removedBytes === b.removedBytes)) &&
  (a.outcome !== "skipped" || (b.outcome === "skipped" && a.reason === b.reason));

export type Differential = {
  /** Generates, stores and checks `count` rows of `family` (pages of `pageSize`). */
  run(family: Family, count: number, options?: { seed?: number; pageSize?: number }): Promise<{ stats: FamilyStats; differences: Difference[] }>;
  close(): Promise<void>;
};

/** One engine's database for the fuzz: a task "f" with session "f-s1", raw inserts and raw reads of the stored bytes. */
export type FuzzDb = {
  store: CompactionStore;
  /** Whether the engine can hold this row (PostgreSQL text never holds a NUL byte). */
  holds(row: HostileRow): boolean;
  insert(id: string, row: HostileRow): void | Promise<void>;
  /** The stored value's type ("text", "blob", "null") and bytes. */
  stored(rowid: number): { type: string; bytes: Buffer } | Promise<{ type: string; bytes: Buffer }>;
  clear(): void | Promise<void>;
  close(): void | Promise<void>;
};

export function sqliteFuzzDb(): FuzzDb {
  const t = createTestDb("ws-fuzz-");
  insertTask(t.sqlite, { id: "f" });
  insertSession(t.sqlite, { id: "f-s1", taskId: "f" });
  const insert = (metadata: string) =>
    t.sqlite.prepare(
      `insert into messages (id, session_id, author_type, type, content, metadata, created_at, created_at_ms, updated_at, updated_at_ms)
       values (?, 'f-s1', 'agent', ?, 'tool', ${metadata}, '2025-01-01T00:00:00Z', 0, '2025-01-01T00:00:00Z', 0)`,
    );
  const text = insert("cast(? as text)");
  const blob = insert("?");
  const storedBytes = t.sqlite.prepare("select typeof(metadata) as type, cast(metadata as blob) as bytes from messages where rowid = ?");
  return {
    store: storeOf(t.sqlite),
    holds: () => true,
    insert: (id, row) => void (row.storage === "blob" ? blob : text).run(id, row.type, row.bytes),
    stored: (rowid) => storedBytes.get(rowid) as { type: string; bytes: Buffer },
    clear: () => void t.sqlite.prepare("delete from messages where session_id = 'f-s1'").run(),
    close: () => t.close(),
  };
}

export function openDifferential(db: FuzzDb = sqliteFuzzDb()): Differential {
  const { store } = db;
  let serial = 0;

  const checkPage = async (family: Family, rows: HostileRow[], firstIndex: number, stats: FamilyStats, differences: Difference[]) => {
    const differ = (index: number, what: string, detail: string) => {
      stats.differences += 1;
      if (differences.length < 50) differences.push({ family, index: firstIndex + index, what, detail, head: rows[index]!.bytes.subarray(0, 160).toString("hex") });
    };
    const ids: string[] = [];
    for (const row of rows) {
      const id = `m${serial++}`;
      await db.insert(id, row);
      ids.push(id);
    }
    const index = new Map(ids.map((id, i) => [id, i]));
    try {
      const limits = { maxRows: rows.length + 1, maxBytes: 1 << 30, rowLimitBytes: 32 * 1024 * 1024 };
      const plan = await planMessagePage(store, { sessionId: "f-s1", afterRowid: null, bounds: { upperTaskId: "f", upperMessageRowid: Number.MAX_SAFE_INTEGER }, limits });
      // The pipeline's own skips before any read (oversize, values that are not text).
      const planned = new Map<number, Outcome>();
      for (const header of plan.oversize) planned.set(index.get(header.id)!, { outcome: "skipped", reason: "oversize" });
      for (const header of (plan as { notText?: typeof plan.rows }).notText ?? []) planned.set(index.get(header.id)!, { outcome: "skipped", reason: "not_text" });

      const viaSql = new Map<number, Outcome>();
      const page = await attempt(async () => {
        const facts = await store.readToolRowFacts({ sessionId: "f-s1", rows: plan.rows });
        const alone = await store.readToolRowFacts({ sessionId: "f-s1", rows: plan.rows.map((h) => ({ ...h, bytes: Math.max(h.bytes, PAGE_ROW_MAX_BYTES + 1) })) });
        for (const [i, row] of facts.entries()) {
          const at = index.get(row.id)!;
          if (!isDeepStrictEqual(row, alone[i])) differ(at, "page facts differ from single-row facts", JSON.stringify(alone[i]?.facts ?? null).slice(0, 200));
          const judged = await attempt(() => {
            const result = judgeRowFacts(row, FUZZ_REMOVED_AT);
            return result === null ? { outcome: "threw", error: "left to the reducer" } : outcomeOf(result, "utf8");
          });
          if (!(judged.outcome === "threw" && judged.error === "left to the reducer")) viaSql.set(at, judged);
        }
        return { outcome: "skipped", reason: "-" };
      });
      if (page.outcome === "threw") for (let i = 0; i < rows.length; i++) differ(i, "facts statement threw", page.error);

      const viaJs = new Map<number, Outcome>();
      const bodies = await attempt(async () => {
        for (const body of await store.readToolRowBodies({ sessionId: "f-s1", rows: plan.rows })) {
          const { metadata, encoding } = body as typeof body & { encoding?: string };
          viaJs.set(
            index.get(body.id)!,
            await attempt(() =>
              metadata === null
                ? { outcome: "skipped", reason: "not_text" }
                : outcomeOf(reduceToolPayload({ type: body.type, metadata, removedAt: FUZZ_REMOVED_AT, encoding } as Parameters<typeof reduceToolPayload>[0]), encoding),
            ),
          );
        }
        return { outcome: "skipped", reason: "-" };
      });
      if (bodies.outcome === "threw") for (let i = 0; i < rows.length; i++) differ(i, "body read threw", bodies.error);

      // The pipeline: preparePage, then each changed row written as a batch writes it.
      const tally = createTally();
      const prepared = await attempt(async () => {
        const pageRows = (await preparePage({ store, sessionId: "f-s1", rows: plan.rows, removedAt: FUZZ_REMOVED_AT, tally })).rows;
        const changed = rows.filter((row) => row.expect.outcome === "changed").length;
        if (pageRows.length !== changed) differ(0, "the pipeline prepared another number of rows", `${pageRows.length}; expected ${changed}`);
        for (const row of pageRows) {
          const write = row as typeof row & { encoding?: string };
          const written =
            row.observed !== null
              ? await store.replaceMetadataIfUnchanged({ rowid: row.rowid, observed: row.observed, next: row.next, encoding: write.encoding } as Parameters<typeof store.replaceMetadataIfUnchanged>[0])
              : await store.replaceMetadataIfVersion({ rowid: row.rowid, updatedAt: row.updatedAt, bytes: row.bytes, next: row.next, encoding: write.encoding } as Parameters<typeof store.replaceMetadataIfVersion>[0]);
          const at = index.get(row.id)!;
          const expect = rows[at]!.expect;
          const stored = await db.stored(row.rowid);
          if (!written) differ(at, "the guarded write refused the row", describeOutcome(expect));
          else if (expect.outcome !== "changed" || stored.type !== "text" || !stored.bytes.equals(expect.bytes))
            differ(at, "stored bytes after the write are not the expectation's", `${stored.type} ${stored.bytes.length} bytes; expected ${describeOutcome(expect)}`);
        }
        return { outcome: "skipped", reason: "-" };
      });
      if (prepared.outcome === "threw") for (let i = 0; i < rows.length; i++) differ(i, "page preparation threw", prepared.error);

      rows.forEach((row, i) => {
        stats.rows += 1;
        const expect = row.expect;
        if (expect.outcome === "changed") stats.changed += 1;
        else stats.skipped[expect.reason] = (stats.skipped[expect.reason] ?? 0) + 1;
        const first = planned.get(i);
        const js = first ?? viaJs.get(i) ?? { outcome: "threw", error: "row not read" };
        if (!same(js, expect)) differ(i, first ? "page planning differs from the expectation" : "JS reducer differs from the expectation", `${describeOutcome(js)}; expected ${describeOutcome(expect)}`);
        const sql = viaSql.get(i);
        if (sql) {
          stats.sqlJudged += 1;
          if (sql.outcome === "changed") stats.sqlChanged += 1;
          if (!same(sql, expect)) differ(i, "SQL path differs from the expectation", `${describeOutcome(sql)}; expected ${describeOutcome(expect)}`);
          if (sql.outcome === "changed" && sql.removedBytes !== row.bytes.length - sql.bytes.length) differ(i, "SQL removed_bytes is not the stored byte difference", `${sql.removedBytes}`);
        }
        if (js.outcome === "changed" && js.removedBytes !== row.bytes.length - js.bytes.length) differ(i, "JS removed_bytes is not the stored byte difference", `${js.removedBytes}`);
      });
      // Skips the pipeline counted, against the expectation's (the pipeline skips rows it never writes).
      const expected: Record<string, number> = {};
      for (const row of rows) if (row.expect.outcome === "skipped" && !["oversize", "not_text"].includes(row.expect.reason)) expected[row.expect.reason] = (expected[row.expect.reason] ?? 0) + 1;
      if (prepared.outcome !== "threw" && !isDeepStrictEqual(tally.skipped, expected)) differ(0, "the pipeline's skip counts differ", `${JSON.stringify(tally.skipped)}; expected ${JSON.stringify(expected)}`);
    } finally {
      await db.clear();
    }
  };

  return {
    async run(family, count, options = {}) {
      const next = hostileRows(family, options.seed ?? 1, FUZZ_REMOVED_AT);
      const pageSize = options.pageSize ?? 40;
      const stats: FamilyStats = { rows: 0, sqlJudged: 0, sqlChanged: 0, changed: 0, skipped: {}, differences: 0 };
      const differences: Difference[] = [];
      for (let done = 0; done < count; done += pageSize) {
        const rows: HostileRow[] = [];
        while (rows.length < Math.min(pageSize, count - done)) {
          const row = next();
          if (db.holds(row)) rows.push(row);
        }
        await checkPage(family, rows, done, stats, differences);
      }
      return { stats, differences };
    },
    close: async () => {
      await db.close();
    },
  };
}
