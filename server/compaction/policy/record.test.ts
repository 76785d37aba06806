import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { AppError } from "@/server/errors";
import { COMPACTION_SETTINGS_KEY, createDefaultRecord, compactionRecordSchema, type CompactionRecord } from "./policy-schema";
import { readCompactionRecord, updateCompactionRecord, withCompactionRecordInTx } from "./record";
import { storeOf } from "../test-support";

const NOW = Date.UTC(2026, 5, 1);

let db: TestDb;
beforeEach(async () => {
  db = createTestDb("ws-retention-record-");
});
afterEach(() => db.close());

function storeRaw(value: string) {
  db.sqlite
    .prepare("INSERT OR REPLACE INTO settings (key, value, updated_at_ms) VALUES (?, ?, ?)")
    .run(COMPACTION_SETTINGS_KEY, value, NOW);
}

function enable(record: CompactionRecord, age = record.policy.age): CompactionRecord {
  return { ...record, policy: { ...record.policy, enabled: true, age } };
}

async function expectCode(fn: () => unknown, code: string) {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(code);
    return;
  }
  throw new Error(`expected AppError ${code}`);
}

describe("compaction settings record", () => {
  it("[TPR-POL-01] uses key tool_payload_retention, version 1, disabled, 3 months by default", async () => {
    expect(COMPACTION_SETTINGS_KEY).toBe("tool_payload_retention");
    const read = await readCompactionRecord(storeOf(db.sqlite));
    expect(read.state).toBe("missing");
    if (read.state === "malformed") throw new Error("unreachable");
    expect(read.record.version).toBe(1);
    expect(read.record.policy).toEqual({ enabled: false, age: { value: 3, unit: "months" }, revision: 0 });

    await updateCompactionRecord(storeOf(db.sqlite), { mutate: enable, nowMs: NOW });
    const stored = db.sqlite.prepare("SELECT key, value, updated_at_ms AS at FROM settings").all() as {
      key: string;
      value: string;
      at: number;
    }[];
    expect(stored).toHaveLength(1);
    expect(stored[0]!.key).toBe("tool_payload_retention");
    expect(stored[0]!.at).toBe(NOW);
    expect(JSON.parse(stored[0]!.value)).toMatchObject({ version: 1, policy: { enabled: true, revision: 1 } });
  });

  it("[TPR-POL-02] accepts weeks 1-520 and months 1-120 integers only", async () => {
    const withAge = (age: unknown) => ({ ...createDefaultRecord(), policy: { enabled: true, age, revision: 0 } });
    for (const age of [
      { value: 1, unit: "weeks" },
      { value: 520, unit: "weeks" },
      { value: 1, unit: "months" },
      { value: 120, unit: "months" },
    ]) {
      expect(compactionRecordSchema.safeParse(withAge(age)).success).toBe(true);
    }
    for (const age of [
      { value: 0, unit: "weeks" },
      { value: 521, unit: "weeks" },
      { value: 0, unit: "months" },
      { value: 121, unit: "months" },
      { value: 2.5, unit: "months" },
      { value: "3", unit: "months" },
      { value: 3, unit: "days" },
      { value: 3, unit: "years" },
      { value: 3, unit: "months", extra: true },
    ]) {
      expect(compactionRecordSchema.safeParse(withAge(age)).success, JSON.stringify(age)).toBe(false);
    }
  });

  it("[TPR-POL-02] rejects unknown fields at every level of the record", async () => {
    const base = createDefaultRecord();
    const variants: unknown[] = [
      { ...base, extra: 1 },
      { ...base, policy: { ...base.policy, extra: 1 } },
      { ...base, runtime: { ...base.runtime, history: [] } },
      { ...base, runtime: { ...base.runtime, preparation: { ...base.runtime.preparation, note: "x" } } },
      { ...base, version: 2 },
    ];
    for (const variant of variants) expect(compactionRecordSchema.safeParse(variant).success).toBe(false);
    // A mutation producing an invalid record writes nothing.
    await expect(
      updateCompactionRecord(storeOf(db.sqlite), {
        mutate: (r) => ({ ...r, policy: { ...r.policy, age: { value: 999, unit: "months" } } }),
        nowMs: NOW,
      }),
    ).rejects.toThrow();
    expect((await readCompactionRecord(storeOf(db.sqlite))).state).toBe("missing");
  });

  it("[TPR-POL-03] revision increases by one per policy change and stays on runtime-only writes", async () => {
    const first = await updateCompactionRecord(storeOf(db.sqlite), { expectedRevision: 0, mutate: enable, nowMs: NOW });
    expect(first.record.policy.revision).toBe(1);
    expect(first.policyChanged).toBe(true);
    const runtimeOnly = await updateCompactionRecord(storeOf(db.sqlite), {
      expectedRevision: 1,
      // A caller trying to set the revision itself is ignored.
      mutate: (r) => ({ ...r, policy: { ...r.policy, revision: 42 }, runtime: { ...r.runtime, lastErrorCode: "x" } }),
      nowMs: NOW,
    });
    expect(runtimeOnly.record.policy.revision).toBe(1);
    expect(runtimeOnly.policyChanged).toBe(false);
    const weeks = await updateCompactionRecord(storeOf(db.sqlite), {
      expectedRevision: 1,
      mutate: (r) => enable(r, { value: 6, unit: "weeks" }),
      nowMs: NOW,
    });
    expect(weeks.record.policy.revision).toBe(2);
    const readBack = await readCompactionRecord(storeOf(db.sqlite));
    expect(readBack.state === "ok" && readBack.record.policy).toEqual({
      enabled: true,
      age: { value: 6, unit: "weeks" },
      revision: 2,
    });
  });

  it("[TPR-POL-03] a stale expected revision is a 409 conflict and overwrites nothing", async () => {
    await updateCompactionRecord(storeOf(db.sqlite), { expectedRevision: 0, mutate: enable, nowMs: NOW });
    const before = db.sqlite.prepare("SELECT value FROM settings").pluck().get();
    await expectCode(
      () =>
        updateCompactionRecord(storeOf(db.sqlite), {
          expectedRevision: 0,
          mutate: (r) => ({ ...r, policy: { ...r.policy, enabled: false } }),
          nowMs: NOW + 1,
        }),
      "conflict",
    );
    expect(db.sqlite.prepare("SELECT value FROM settings").pluck().get()).toBe(before);
    expect(db.sqlite.inTransaction).toBe(false);
  });

  it("[TPR-POL-03] the compare-and-swap runs inside an IMMEDIATE writer transaction", async () => {
    let sawTransaction = false;
    await updateCompactionRecord(storeOf(db.sqlite), {
      mutate: (r) => {
        sawTransaction = db.sqlite.inTransaction;
        return enable(r);
      },
      nowMs: NOW,
    });
    expect(sawTransaction).toBe(true);
    // A second connection holding the writer makes the update wait, then fail busy: proof it takes the writer lock up front.
    const other = new Database(db.file);
    other.pragma("busy_timeout = 0");
    db.sqlite.pragma("busy_timeout = 0");
    other.prepare("BEGIN IMMEDIATE").run();
    try {
      await expect(updateCompactionRecord(storeOf(db.sqlite), { mutate: (r) => r, nowMs: NOW })).rejects.toThrow(/busy|locked/i);
    } finally {
      other.prepare("ROLLBACK").run();
      other.close();
    }
  });

  it("[TPR-POL-03] callers inside their own writer transaction read and write through withCompactionRecordInTx", async () => {
    await expect(withCompactionRecordInTx(storeOf(db.sqlite), () => 1)).rejects.toThrow(/transaction/);
    await updateCompactionRecord(storeOf(db.sqlite), { mutate: enable, nowMs: NOW });
    const store = storeOf(db.sqlite);
    const result = await store.writeTransaction((tx) =>
      withCompactionRecordInTx(tx, ({ current, write }) => {
        if (current.state !== "ok") throw new Error("expected ok");
        return write({ ...current.record, runtime: { ...current.record.runtime, approvedRevision: 1 } }, NOW);
      }),
    );
    expect(result.runtime.approvedRevision).toBe(1);
    expect(result.policy.revision).toBe(1);
  });

  it("[TPR-POL-04] policy and runtime live in one record holding only latest analysis, latest run and the active operation", async () => {
    const op = {
      id: "op-1",
      kind: "analysis" as const,
      state: "succeeded" as const,
      startedAt: "2026-06-01T00:00:00Z",
      finishedAt: "2026-06-01T00:00:05Z",
      cutoff: "2026-03-01T00:00:00Z",
      scannedRows: 10,
      eligibleTasks: 2,
      eligibleMessages: 5,
      changedMessages: 0,
      payloadBytes: 1234,
      skipped: { unsupported: 1 },
      stale: false,
      fingerprint: "months:3",
    };
    await updateCompactionRecord(storeOf(db.sqlite), {
      mutate: (r) => ({ ...r, runtime: { ...r.runtime, latestAnalysis: op } }),
      nowMs: NOW,
    });
    await updateCompactionRecord(storeOf(db.sqlite), {
      mutate: (r) => ({ ...r, runtime: { ...r.runtime, latestAnalysis: { ...op, id: "op-2" } } }),
      nowMs: NOW,
    });
    expect(db.sqlite.prepare("SELECT count(*) FROM settings").pluck().get()).toBe(1);
    const read = await readCompactionRecord(storeOf(db.sqlite));
    expect(read.state === "ok" && read.record.runtime.latestAnalysis?.id).toBe("op-2");
    expect(Object.keys(JSON.parse(db.sqlite.prepare("SELECT value FROM settings").pluck().get() as string))).toEqual([
      "version",
      "policy",
      "runtime",
    ]);
    // No list of past operations is accepted.
    const withHistory = { ...createDefaultRecord(), runtime: { ...createDefaultRecord().runtime, operations: [op] } };
    expect(compactionRecordSchema.safeParse(withHistory).success).toBe(false);
  });

  it("[TPR-POL-05] a missing record reads as disabled defaults", async () => {
    const read = await readCompactionRecord(storeOf(db.sqlite));
    expect(read).toEqual({ state: "missing", record: createDefaultRecord() });
    expect(read.state === "missing" && read.record.policy.enabled).toBe(false);
  });

  it("[TPR-POL-05] a malformed record is a typed state, never a throw, and blocks writes until reset", async () => {
    const cases = [
      "not json",
      "[]",
      "null",
      JSON.stringify({ version: 1 }),
      JSON.stringify({ ...createDefaultRecord(), version: 2 }),
      JSON.stringify({ ...createDefaultRecord(), policy: { enabled: "yes", age: { value: 3, unit: "months" }, revision: 7 } }),
    ];
    for (const text of cases) {
      storeRaw(text);
      expect(await readCompactionRecord(storeOf(db.sqlite))).toEqual({ state: "malformed", errorCode: "settings_malformed" });
      await expectCode(() => updateCompactionRecord(storeOf(db.sqlite), { expectedRevision: 0, mutate: enable, nowMs: NOW }), "settings_malformed");
    }
    // The last stored case had revision 7: replacing it continues above it.
    const reset = await updateCompactionRecord(storeOf(db.sqlite), { mutate: (r) => r, nowMs: NOW, onMalformed: "reset" });
    expect(reset.record.policy).toEqual({ enabled: false, age: { value: 3, unit: "months" }, revision: 8 });
    expect((await readCompactionRecord(storeOf(db.sqlite))).state).toBe("ok");
  });

  it("[TPR-POL-06] introducing the feature rewrites no message and backfills nothing", async () => {
    db.sqlite.exec(`
      INSERT INTO tasks (id, title, state, created_at, updated_at) VALUES ('t1', 'T', 'COMPLETED', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
      INSERT INTO task_sessions (id, task_id, state, updated_at) VALUES ('s1', 't1', 'COMPLETED', '2025-01-01T00:00:00Z');
      INSERT INTO messages (id, session_id, author_type, type, metadata, created_at, updated_at)
        VALUES ('m1', 's1', 'agent', 'tool_execute', '{"normalized":{"kind":"shell_exec","shell_exec":{"output":{"stdout":"x"}}}}', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
    `);
    const snapshot = () => db.sqlite.prepare("SELECT * FROM messages").all();
    const before = snapshot();
    const changesBefore = db.sqlite.prepare("SELECT total_changes()").pluck().get() as number;
    await readCompactionRecord(storeOf(db.sqlite));
    expect(db.sqlite.prepare("SELECT total_changes()").pluck().get()).toBe(changesBefore);
    await updateCompactionRecord(storeOf(db.sqlite), { mutate: enable, nowMs: NOW });
    expect(snapshot()).toEqual(before);
    // Only the settings row was written.
    expect(db.sqlite.prepare("SELECT total_changes()").pluck().get()).toBe(changesBefore + 1);
  });
});

describe("ready preparation consistency", () => {
  it("[TPR-POL-05] [TPR-PREP-10] a record that says ready without the receipt of its choice is malformed and blocks deletion", async () => {
    const t = createTestDb();
    try {
      const record = createDefaultRecord();
      record.policy = { enabled: true, age: { value: 3, unit: "months" }, revision: 1 };
      record.runtime.approvedRevision = 1;
      record.runtime.preparation = { state: "ready", choice: null, revision: 1, operationId: null, receipt: null, errorCode: null };
      t.sqlite.prepare("insert into settings (key, value, updated_at_ms) values ('tool_payload_retention', ?, 0)").run(JSON.stringify(record));
      expect(await readCompactionRecord(storeOf(t.sqlite))).toEqual({ state: "malformed", errorCode: "settings_malformed" });
      record.runtime.preparation = { state: "ready", choice: "backup", revision: 1, operationId: null, receipt: { skippedAt: "2026-01-01T00:00:00Z" }, errorCode: null };
      t.sqlite.prepare("update settings set value = ?").run(JSON.stringify(record));
      expect((await readCompactionRecord(storeOf(t.sqlite))).state).toBe("malformed");
    } finally {
      t.close();
    }
  });
});
