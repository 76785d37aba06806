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
async function sqliteReference(fixtures: readonly string[]): Promise<WorkspaceStore> {
  const db = createTestDb();
  references.push(db);
  const store = createSqliteWorkspaceStore(db.db);
  for (const [i, text] of fixtures.entries()) await importFixture(store, { file: `f${i}.json`, text });
  return store;
}

describeEachEngine("WorkspaceStore", ({ engine, db, open }) => {
  it("[TPR-TX-09] [TPR-RED-10] import then export of the sample fixture is byte-identical to SQLite's, metadata as written", async () => {
    const store = db().workspace();
    await importFixture(store, { file: "in.json", text: sampleFixture() });
    const reference = await sqliteReference([sampleFixture()]);
    for (const taskId of ["t1", "t2"]) expect(await exportTask(store, taskId)).toBe(await exportTask(reference, taskId));
    expect(await exportTask(store, "t1")).toContain(TRICKY_METADATA);
    expect(await db().rows<{ metadata: string }>("select metadata from messages where id = ?", ["m2"])).toEqual([{ metadata: TRICKY_METADATA }]);
  });

  // Seeding is the slow part; on SQLite this would compare SQLite with itself.
  it.skipIf(engine === "sqlite")("[TPR-TX-09] the demo workspace (every payload kind, multi-MB outputs) exports byte-identically to SQLite", async () => {
    const store = db().workspace();
    const seed = { seed: 7, nowMs: Date.UTC(2026, 5, 1) };
    const seeded = await seedDemoWorkspace({ store, ...seed });
    const reference = await sqliteReference([]);
    expect(await seedDemoWorkspace({ store: reference, ...seed })).toEqual(seeded);
    const { tasks, total } = await store.listTasks({ limit: 1000, offset: 0 });
    expect(total).toBe(seeded.tasks);
    expect((await reference.listTasks({ limit: 1000, offset: 0 })).tasks).toEqual(tasks);
    for (const task of tasks) expect(await exportTask(store, task.id) === await exportTask(reference, task.id)).toBe(true);
    // Two demo seeds with multi-MB outputs: 54 s at load 35 on two cores.
  }, 180_000);

  it("[TPR-TX-09] export -> import into an empty database -> export is byte-identical", async () => {
    const store = db().workspace();
    await importFixture(store, { file: "in.json", text: sampleFixture({ metadata: SUMMARY_METADATA }) });
    const target = (await open()).workspace();
    for (const taskId of ["t1", "t2"]) {
      const first = await exportTask(store, taskId);
      await importFixture(target, { file: `${taskId}.json`, text: first });
      expect(await exportTask(target, taskId)).toBe(first);
    }
  });

  it("minifies a metadata object keeping key order, duplicates, number literals and escapes; refuses anything else", async () => {
    const store = db().workspace();
    expect(await store.canonicalJsonObject(' {"z" : 1.10, "a":[ -0, 1E+3 ],\n "a": "caf\\u00e9 \\/" } ')).toBe('{"z":1.10,"a":[-0,1E+3],"a":"caf\\u00e9 \\/"}');
    expect(await store.canonicalJsonObject(TRICKY_METADATA)).toBe(TRICKY_METADATA);
    for (const text of ["[1]", '"x"', "1", "null", "{oops", '{"a":1,}', "", "{} {}"]) expect(await store.canonicalJsonObject(text)).toBeNull();
  });

  it("accepts and minifies exactly the metadata SQLite's json() accepts", async () => {
    const store = db().workspace();
    const reference = await sqliteReference([]);
    const inputs = [
      // (JSON escapes in the text, then raw characters: BOM, tab, CR/LF, NUL)
      '{"a":"\\u0000"}', '{"a":"\\ud800"}', '{"a":"tab\\there"}', '\ufeff{"a":1}', '{"a":"raw\ttab"}', '{\t"a"\r\n:1}', '{"a":"\u0000"}',
      '{"a":01}', '{"a":.5}',
      '{"a":NaN}', '{"a":1e}', '{"a":-}', "{'a':1}", '{a:1}', '{"a":1}//', '{"a":123456789012345678901234567890}', '{"a":"\\x41"}',
      `${"{\"a\":".repeat(999)}1${"}".repeat(999)}`, `${"{\"a\":".repeat(1001)}1${"}".repeat(1001)}`, '{"a":[1,]}', '{"":""}', "{}",
    ];
    for (const text of inputs) expect([text.slice(0, 24), await store.canonicalJsonObject(text)]).toEqual([text.slice(0, 24), await reference.canonicalJsonObject(text)]);
  });

  it("reads tool_call_id only when it is a string", async () => {
    const store = db().workspace();
    expect(await store.toolCallIdOf('{"tool_call_id":"c\\u0031"}')).toBe("c1");
    expect(await store.toolCallIdOf('{"tool_call_id":12}')).toBeNull();
    expect(await store.toolCallIdOf('{"nested":{"tool_call_id":"c1"}}')).toBeNull();
  });

  it("lists tasks, headers and conversation rows exactly as SQLite does", async () => {
    const store = db().workspace();
    for (const [i, text] of CONVERSATION_FIXTURES.entries()) await importFixture(store, { file: `f${i}.json`, text });
    const reference = await sqliteReference(CONVERSATION_FIXTURES);
    expect(await store.listTasks({ limit: 10, offset: 0 })).toEqual(await reference.listTasks({ limit: 10, offset: 0 }));
    expect(await store.listTasks({ limit: 2, offset: 3 })).toEqual(await reference.listTasks({ limit: 2, offset: 3 }));
    for (const taskId of ["t1", "xt1", "yt1", "t2", "nope"]) {
      expect(await store.readTaskHeader(taskId)).toEqual(await reference.readTaskHeader(taskId));
      expect(await store.listConversationRows(taskId, 50)).toEqual(await reference.listConversationRows(taskId, 50));
      expect(await store.readTaskTree(taskId)).toEqual(await reference.readTaskTree(taskId));
    }
    const marked = (await store.listConversationRows("xt1", 50)).find((row) => row.id === "xm2");
    expect(marked).toMatchObject({ kind: "shell_exec", command: 'make "all"', exitCode: 0, markerType: "object", removedAt: "2026-03-01T00:00:00Z", title: '{"b":1,"a":[true,1.50]}' });
    expect(await store.listConversationRows("t1", 1)).toHaveLength(1);
  });

  it("rolls a throwing writer transaction back and reports existence per record kind", async () => {
    const store = db().workspace();
    await expect(
      store.writeTransaction(async (tx) => {
        await tx.insertTask({ id: "t9", title: "x", state: "OPEN", createdAt: "2026-01-01T00:00:00Z", updatedAt: null, queuedForStep: true });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await store.recordExists("task", "t9")).toBe(false);
    await importFixture(store, { file: "in.json", text: sampleFixture() });
    expect(await Promise.all(["task", "session", "turn", "message", "queued message", "run"].map((kind) => store.recordExists(kind as never, "t1")))).toEqual([
      true, false, false, false, false, false,
    ]);
    expect(await store.recordExists("queued message", "q1")).toBe(true);
    expect(await store.sessionOfTurn("u2")).toBe("s2");
    expect(await store.sessionOfTurn("nope")).toBeNull();
  });
});
