// The WorkspaceStore contract, one suite run on every engine. Reads and
// exports are compared with SQLite's answers for the same fixture, so
// PostgreSQL is held to the embedded engine's exact behaviour.
import { afterEach, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/server/db/test-db";
import { describeEachEngine } from "@/server/engines-test-support";
import { seedDemoWorkspace } from "./demo/seed";
import { exportTask } from "./export/export-task";
import { importFixture } from "./fixture/import-fixture";
import { sampleFixture, TRICKY_METADATA } from "./fixture/test-support";
import { createSqliteWorkspaceStore } from "./sqlite-store";
import type { WorkspaceStore } from "./store";

// Summary fields of every JSON type, a compaction marker and a spaced-out layout.
const SUMMARY_METADATA =
  '{ "title" : {"b":1, "a":[true, 1.50]}, "payload_retention": {"removed_at": "2026-03-01T00:00:00Z", "bytes": 12},\n' +
  '  "normalized": {"kind": "shell_exec", "shell_exec": {"command": "make \\"all\\"", "output": {"exit_code": -0}}}, "tool_call_id": "c9" }';
const CONVERSATION_FIXTURES = [sampleFixture(), sampleFixture({ prefix: "x", metadata: SUMMARY_METADATA }), sampleFixture({ prefix: "y", metadata: '{"title":true,"payload_retention":null}' })];

const references: TestDb[] = [];
afterEach(() => references.splice(0).forEach((db) => db.close()));

/** A SQLite store holding the same fixtures: the answers every engine must give. */
function sqliteReference(fixtures: readonly string[]): WorkspaceStore {
  const db = createTestDb();
  references.push(db);
  const store = createSqliteWorkspaceStore(db.sqlite);
  fixtures.forEach((text, i) => importFixture(store, { file: `f${i}.json`, text }));
  return store;
}

describeEachEngine("WorkspaceStore", ({ engine, db, open }) => {
  it("[TPR-TX-09] [TPR-RED-10] import then export of the sample fixture is byte-identical to SQLite's, metadata as written", () => {
    const store = db().workspace();
    importFixture(store, { file: "in.json", text: sampleFixture() });
    const reference = sqliteReference([sampleFixture()]);
    for (const taskId of ["t1", "t2"]) expect(exportTask(store, taskId)).toBe(exportTask(reference, taskId));
    expect(exportTask(store, "t1")).toContain(TRICKY_METADATA);
    expect(db().rows<{ metadata: string }>("select metadata from messages where id = ?", ["m2"])).toEqual([{ metadata: TRICKY_METADATA }]);
  });

  // Seeding is the slow part; on SQLite this would compare SQLite with itself.
  it.skipIf(engine === "sqlite")("[TPR-TX-09] the demo workspace (every payload kind, multi-MB outputs) exports byte-identically to SQLite", () => {
    const store = db().workspace();
    const seed = { seed: 7, nowMs: Date.UTC(2026, 5, 1) };
    const seeded = seedDemoWorkspace({ store, ...seed });
    const reference = sqliteReference([]);
    expect(seedDemoWorkspace({ store: reference, ...seed })).toEqual(seeded);
    const { tasks, total } = store.listTasks({ limit: 1000, offset: 0 });
    expect(total).toBe(seeded.tasks);
    expect(reference.listTasks({ limit: 1000, offset: 0 }).tasks).toEqual(tasks);
    for (const task of tasks) expect(exportTask(store, task.id) === exportTask(reference, task.id)).toBe(true);
  });

  it("[TPR-TX-09] export -> import into an empty database -> export is byte-identical", () => {
    const store = db().workspace();
    importFixture(store, { file: "in.json", text: sampleFixture({ metadata: SUMMARY_METADATA }) });
    const target = open().workspace();
    for (const taskId of ["t1", "t2"]) {
      const first = exportTask(store, taskId);
      importFixture(target, { file: `${taskId}.json`, text: first });
      expect(exportTask(target, taskId)).toBe(first);
    }
  });

  it("minifies a metadata object keeping key order, duplicates, number literals and escapes; refuses anything else", () => {
    const store = db().workspace();
    expect(store.canonicalJsonObject(' {"z" : 1.10, "a":[ -0, 1E+3 ],\n "a": "caf\\u00e9 \\/" } ')).toBe('{"z":1.10,"a":[-0,1E+3],"a":"caf\\u00e9 \\/"}');
    expect(store.canonicalJsonObject(TRICKY_METADATA)).toBe(TRICKY_METADATA);
    for (const text of ["[1]", '"x"', "1", "null", "{oops", '{"a":1,}', "", "{} {}"]) expect(store.canonicalJsonObject(text)).toBeNull();
  });

  it("accepts and minifies exactly the metadata SQLite's json() accepts", () => {
    const store = db().workspace();
    const reference = sqliteReference([]);
    const inputs = [
      // (JSON escapes in the text, then raw characters: BOM, tab, CR/LF, NUL)
      '{"a":"\\u0000"}', '{"a":"\\ud800"}', '{"a":"tab\\there"}', '\ufeff{"a":1}', '{"a":"raw\ttab"}', '{\t"a"\r\n:1}', '{"a":"\u0000"}',
      '{"a":01}', '{"a":.5}',
      '{"a":NaN}', '{"a":1e}', '{"a":-}', "{'a':1}", '{a:1}', '{"a":1}//', '{"a":123456789012345678901234567890}', '{"a":"\\x41"}',
      `${"{\"a\":".repeat(999)}1${"}".repeat(999)}`, `${"{\"a\":".repeat(1001)}1${"}".repeat(1001)}`, '{"a":[1,]}', '{"":""}', "{}",
    ];
    for (const text of inputs) expect([text.slice(0, 24), store.canonicalJsonObject(text)]).toEqual([text.slice(0, 24), reference.canonicalJsonObject(text)]);
  });

  it("reads tool_call_id only when it is a string", () => {
    const store = db().workspace();
    expect(store.toolCallIdOf('{"tool_call_id":"c\\u0031"}')).toBe("c1");
    expect(store.toolCallIdOf('{"tool_call_id":12}')).toBeNull();
    expect(store.toolCallIdOf('{"nested":{"tool_call_id":"c1"}}')).toBeNull();
  });

  it("lists tasks, headers and conversation rows exactly as SQLite does", () => {
    const store = db().workspace();
    CONVERSATION_FIXTURES.forEach((text, i) => importFixture(store, { file: `f${i}.json`, text }));
    const reference = sqliteReference(CONVERSATION_FIXTURES);
    expect(store.listTasks({ limit: 10, offset: 0 })).toEqual(reference.listTasks({ limit: 10, offset: 0 }));
    expect(store.listTasks({ limit: 2, offset: 3 })).toEqual(reference.listTasks({ limit: 2, offset: 3 }));
    for (const taskId of ["t1", "xt1", "yt1", "t2", "nope"]) {
      expect(store.readTaskHeader(taskId)).toEqual(reference.readTaskHeader(taskId));
      expect(store.listConversationRows(taskId, 50)).toEqual(reference.listConversationRows(taskId, 50));
      expect(store.readTaskTree(taskId)).toEqual(reference.readTaskTree(taskId));
    }
    const marked = store.listConversationRows("xt1", 50).find((row) => row.id === "xm2");
    expect(marked).toMatchObject({ kind: "shell_exec", command: 'make "all"', exitCode: 0, markerType: "object", removedAt: "2026-03-01T00:00:00Z", title: '{"b":1,"a":[true,1.50]}' });
    expect(store.listConversationRows("t1", 1)).toHaveLength(1);
  });

  it("rolls a throwing writer transaction back and reports existence per record kind", () => {
    const store = db().workspace();
    expect(() =>
      store.writeTransaction((tx) => {
        tx.insertTask({ id: "t9", title: "x", state: "OPEN", createdAt: "2026-01-01T00:00:00Z", updatedAt: null, queuedForStep: true });
        throw new Error("abort");
      }),
    ).toThrow("abort");
    expect(store.recordExists("task", "t9")).toBe(false);
    importFixture(store, { file: "in.json", text: sampleFixture() });
    expect(["task", "session", "turn", "message", "queued message", "run"].map((kind) => store.recordExists(kind as never, "t1"))).toEqual([
      true, false, false, false, false, false,
    ]);
    expect(store.recordExists("queued message", "q1")).toBe(true);
    expect(store.sessionOfTurn("u2")).toBe("s2");
    expect(store.sessionOfTurn("nope")).toBeNull();
  });
});
