import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { sequentialIds } from "@/server/ids";
import { savePolicy } from "./policy-update";
import { readCompactionStatus } from "../status";
import { storeOf, readRecordSync } from "../test-support";

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
let t: TestDb;
beforeEach(async () => {
  t = createTestDb();
});
afterEach(() => t.close());

function record() {
  const read = readRecordSync(t.sqlite);
  if (read.state === "malformed") throw new Error("malformed");
  return read.record;
}

const months = (value: number) => ({ value, unit: "months" as const });
const weeks = (value: number) => ({ value, unit: "weeks" as const });

describe("savePolicy", () => {
  it("[TPR-PREP-01] first enablement with backup stores a pending revision and does not arm deletion", async () => {
    const { record: saved, effects } = await savePolicy(storeOf(t.sqlite), {
      draft: { enabled: true, age: months(3) },
      expectedRevision: 0,
      preparation: "backup",
      nowMs: NOW,
      newId: sequentialIds("prep"),
    });
    expect(saved.policy).toEqual({ enabled: true, age: months(3), revision: 1 });
    expect(saved.runtime.preparation).toMatchObject({ state: "pending", choice: "backup", revision: 1, operationId: "prep-1" });
    expect(saved.runtime.approvedRevision).toBeNull();
    expect(effects).toEqual({ startPreparation: "prep-1", startInitialCleanup: false, stopOperations: [] });
    expect((await readCompactionStatus(storeOf(t.sqlite), NOW)).armed).toBe(false);
  });

  it("[TPR-API-08] enabling without a backup choice is refused and changes nothing", async () => {
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(3) }, expectedRevision: 0, nowMs: NOW, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "backup_choice_required" }));
    expect(readRecordSync(t.sqlite).state).toBe("missing");
  });

  it("[TPR-PREP-10] skip records the approval before any deletion and arms cleanup", async () => {
    const { record: saved, effects } = await savePolicy(storeOf(t.sqlite), {
      draft: { enabled: true, age: months(3) },
      expectedRevision: 0,
      preparation: "skip",
      nowMs: NOW,
      newId: sequentialIds(),
    });
    expect(saved.runtime.preparation).toMatchObject({ state: "ready", choice: "skip", revision: 1, receipt: { skippedAt: "2026-11-29T12:00:00.000Z" } });
    expect(saved.runtime.approvedRevision).toBe(1);
    expect(effects.startInitialCleanup).toBe(true);
    expect((await readCompactionStatus(storeOf(t.sqlite), NOW)).armed).toBe(true);
  });

  it("[TPR-POL-03] a stale expected revision is a conflict and keeps the other administrator's choice", async () => {
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(6) }, expectedRevision: 0, preparation: "skip", nowMs: NOW, newId: sequentialIds() });
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: false, age: months(1) }, expectedRevision: 0, nowMs: NOW, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "conflict" }));
    expect(record().policy).toEqual({ enabled: true, age: months(6), revision: 1 });
  });

  it("[TPR-PREP-02] [TPR-PREP-11] shortening the period pauses cleanup and repeats preparation", async () => {
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(6) }, expectedRevision: 0, preparation: "skip", nowMs: NOW, newId: sequentialIds() });
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: weeks(4) }, expectedRevision: 1, nowMs: NOW, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "backup_choice_required" }));
    const { record: saved } = await savePolicy(storeOf(t.sqlite), {
      draft: { enabled: true, age: weeks(4) },
      expectedRevision: 1,
      preparation: "backup",
      nowMs: NOW,
      newId: sequentialIds("p"),
    });
    expect(saved.policy.revision).toBe(2);
    expect(saved.runtime.approvedRevision).toBeNull();
    expect(saved.runtime.preparation.state).toBe("pending");
    expect((await readCompactionStatus(storeOf(t.sqlite), NOW)).armed).toBe(false);
  });

  it("[TPR-PREP-02] 1 month -> 4 weeks saved on 1 March (same cutoff that day) still asks for the backup choice", async () => {
    const march1 = Date.UTC(2027, 2, 1, 12);
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(1) }, expectedRevision: 0, preparation: "skip", nowMs: march1, newId: sequentialIds() });
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: weeks(4) }, expectedRevision: 1, nowMs: march1, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "backup_choice_required" }));
    expect(record().runtime.approvedRevision).toBe(1);
  });

  it("[TPR-PREP-02] 6 months -> 26 weeks and 3 months -> 13 weeks ask for the backup choice", async () => {
    const at = Date.UTC(2027, 2, 1, 12);
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(6) }, expectedRevision: 0, preparation: "skip", nowMs: at, newId: sequentialIds() });
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: weeks(26) }, expectedRevision: 1, nowMs: at, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "backup_choice_required" }));
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(3) }, expectedRevision: 1, preparation: "skip", nowMs: at, newId: sequentialIds() });
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: weeks(13) }, expectedRevision: 2, nowMs: at, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "backup_choice_required" }));
  });

  it("lengthening an approved period carries the approval over", async () => {
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(3) }, expectedRevision: 0, preparation: "skip", nowMs: NOW, newId: sequentialIds() });
    const { record: saved, effects } = await savePolicy(storeOf(t.sqlite), {
      draft: { enabled: true, age: months(12) },
      expectedRevision: 1,
      nowMs: NOW,
      newId: sequentialIds(),
    });
    expect(saved.policy.revision).toBe(2);
    expect(saved.runtime.approvedRevision).toBe(2);
    expect(effects).toEqual({ startPreparation: null, startInitialCleanup: false, stopOperations: [] });
  });

  it("[TPR-PREP-07] [TPR-PREP-11] disable invalidates the revision; re-enabling repeats preparation", async () => {
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(3) }, expectedRevision: 0, preparation: "skip", nowMs: NOW, newId: sequentialIds() });
    const off = await savePolicy(storeOf(t.sqlite), { draft: { enabled: false, age: months(3) }, expectedRevision: 1, nowMs: NOW, newId: sequentialIds() });
    expect(off.record.policy.revision).toBe(2);
    expect(off.record.runtime.approvedRevision).toBeNull();
    expect(off.record.runtime.preparation.state).toBe("none");
    await expect(
      savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(3) }, expectedRevision: 2, nowMs: NOW, newId: sequentialIds() }),
    ).rejects.toThrow(expect.objectContaining({ code: "backup_choice_required" }));
  });

  it("[TPR-POL-06] saving a policy rewrites no message", async () => {
    t.sqlite.exec(`insert into tasks (id,title,state,created_at,updated_at) values ('t','x','COMPLETED','2020-01-01T00:00:00Z','2020-01-01T00:00:00Z');
      insert into task_sessions (id,task_id,state,updated_at) values ('s','t','COMPLETED','2020-01-01T00:00:00Z');
      insert into messages (id,session_id,author_type,type,metadata,created_at,updated_at) values ('m','s','agent','tool_execute','{"a":1}','2020-01-01T00:00:00Z','2020-01-01T00:00:00Z');`);
    const before = t.sqlite.prepare("select metadata, updated_at from messages").all();
    await savePolicy(storeOf(t.sqlite), { draft: { enabled: true, age: months(3) }, expectedRevision: 0, preparation: "skip", nowMs: NOW, newId: sequentialIds() });
    expect(t.sqlite.prepare("select metadata, updated_at from messages").all()).toEqual(before);
  });
});

describe("readCompactionStatus", () => {
  it("[TPR-POL-05] [TPR-API-06] missing settings read as disabled, malformed ones are reported, neither writes", async () => {
    const status = await readCompactionStatus(storeOf(t.sqlite), NOW);
    expect(status).toMatchObject({ capability: "supported", recordState: "missing", policy: { enabled: false, age: months(3), revision: 0 }, armed: false });
    expect(t.sqlite.prepare("select count(*) c from settings").get()).toEqual({ c: 0 });
    t.sqlite.prepare("insert into settings (key, value, updated_at_ms) values ('tool_payload_retention', '{bad', 0)").run();
    expect(await readCompactionStatus(storeOf(t.sqlite), NOW)).toMatchObject({ recordState: "malformed", lastErrorCode: "settings_malformed", armed: false });
  });
});
